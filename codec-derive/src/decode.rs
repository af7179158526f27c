//! The decoders: `decode_msgpack`, `decode_json` and the map-body hooks.
//!
//! Generated code reads the wire directly: no intermediate tree. A tagged
//! union whose tag comes first decodes in one pass; a tag elsewhere is found
//! by a scan of the map's keys, then the map is read again from its start.
//!
//! Snippets below refer to the locals every generated decoder declares:
//! `__r` (the reader), `__len` (entries or elements left), `__tag` (a key to
//! ignore: the tag of an enclosing union, or empty) and, for JSON, `__first`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Container, EnumRepr, Field, Style, TagValue, Variant};
use crate::attr;
use crate::wire;

#[derive(Clone, Copy, PartialEq)]
enum Fmt {
    MsgPack,
    Json,
}

impl Fmt {
    fn reader(self, p: &TokenStream) -> TokenStream {
        match self {
            Fmt::MsgPack => quote!(#p::MsgpackReader<'_>),
            Fmt::Json => quote!(#p::JsonReader<'_>),
        }
    }

    fn decode_fn(self) -> TokenStream {
        match self {
            Fmt::MsgPack => quote!(decode_msgpack),
            Fmt::Json => quote!(decode_json),
        }
    }
}

/// Methods decoding a struct.
pub fn struct_items(cont: &Container, style: Style, fields: &[Field]) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    match style {
        Style::Named if !cont.attrs.array_like.is_set() => {
            let msgpack = named_body(cont, fields, quote!(Self), Fmt::MsgPack);
            let json = named_body(cont, fields, quote!(Self), Fmt::Json);
            quote! {
                #[inline]
                fn decode_msgpack(__r: &mut #p::MsgpackReader<'_>) -> #p::Result<Self, #p::DecodeError> {
                    let __len = __r.read_map_len()?;
                    <Self as #p::Codec>::__decode_msgpack_body(__r, __len, b"")
                }

                #[inline]
                fn decode_json(__r: &mut #p::JsonReader<'_>) -> #p::Result<Self, #p::DecodeError> {
                    __r.begin_object()?;
                    <Self as #p::Codec>::__decode_json_body(__r, true, "")
                }

                #[inline]
                fn __decode_msgpack_body(
                    __r: &mut #p::MsgpackReader<'_>,
                    __len: usize,
                    __tag: &[u8],
                ) -> #p::Result<Self, #p::DecodeError> {
                    __r.enter()?;
                    let __value = #msgpack;
                    __r.leave();
                    __value
                }

                #[inline]
                fn __decode_json_body(
                    __r: &mut #p::JsonReader<'_>,
                    __first: bool,
                    __tag: &str,
                ) -> #p::Result<Self, #p::DecodeError> {
                    let mut __first = __first;
                    #json
                }
            }
        }
        Style::Named | Style::Tuple => {
            let strict = style == Style::Tuple || cont.deny_unknown_fields();
            let msgpack = array_body(cont, fields, quote!(Self), style, 0, strict, Fmt::MsgPack);
            let json = array_body(cont, fields, quote!(Self), style, 0, strict, Fmt::Json);
            quote! {
                #[inline]
                fn decode_msgpack(__r: &mut #p::MsgpackReader<'_>) -> #p::Result<Self, #p::DecodeError> {
                    let __len = __r.read_array_len()?;
                    __r.enter()?;
                    let __value = #msgpack;
                    __r.leave();
                    __value
                }

                #[inline]
                fn decode_json(__r: &mut #p::JsonReader<'_>) -> #p::Result<Self, #p::DecodeError> {
                    __r.begin_array()?;
                    let mut __first = true;
                    #json
                }
            }
        }
        Style::Newtype => {
            let field = &fields[0];
            let msgpack = field_value(cont, field, Fmt::MsgPack);
            let json = field_value(cont, field, Fmt::Json);
            quote! {
                #[inline]
                fn decode_msgpack(__r: &mut #p::MsgpackReader<'_>) -> #p::Result<Self, #p::DecodeError> {
                    __r.enter()?;
                    let __value = #msgpack?;
                    __r.leave();
                    #p::Ok(Self(__value))
                }

                #[inline]
                fn decode_json(__r: &mut #p::JsonReader<'_>) -> #p::Result<Self, #p::DecodeError> {
                    __r.enter()?;
                    let __value = #json?;
                    __r.leave();
                    #p::Ok(Self(__value))
                }
            }
        }
        Style::Unit => quote! {
            #[inline]
            fn decode_msgpack(__r: &mut #p::MsgpackReader<'_>) -> #p::Result<Self, #p::DecodeError> {
                __r.read_nil().map(|()| Self)
            }

            #[inline]
            fn decode_json(__r: &mut #p::JsonReader<'_>) -> #p::Result<Self, #p::DecodeError> {
                __r.read_null().map(|()| Self)
            }
        },
    }
}

/// Methods decoding an enum.
pub fn enum_items(cont: &Container, variants: &[Variant], repr: EnumRepr) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let mut items = TokenStream::new();
    for fmt in [Fmt::MsgPack, Fmt::Json] {
        let reader = fmt.reader(&p);
        let name = fmt.decode_fn();
        let body = match repr {
            EnumRepr::Unit => unit_enum(cont, variants, fmt),
            EnumRepr::TaggedMap => tagged_map(cont, variants, fmt),
            EnumRepr::TaggedArray => tagged_array(cont, variants, fmt),
            EnumRepr::Untagged => untagged(cont, variants, fmt),
        };
        items.extend(quote! {
            #[inline]
            fn #name(__r: &mut #reader) -> #p::Result<Self, #p::DecodeError> {
                #body
            }
        });
    }
    if repr == EnumRepr::Unit {
        let index = variant_index_from_key(cont, variants);
        let arms = variants.iter().enumerate().map(|(i, v)| {
            let ident = v.ident;
            quote!(#i => #p::Ok(Self::#ident),)
        });
        items.extend(quote! {
            fn __decode_json_key(__r: &mut #p::JsonReader<'_>, __key: &str) -> #p::Result<Self, #p::DecodeError> {
                match #index {
                    #(#arms)*
                    _ => #p::Err(__r.error(#p::DecodeErrorKind::InvalidValue {
                        message: #p::String::from("variant index out of range"),
                    })),
                }
            }
        });
    }
    items
}

/// The `&[...]` of the wire names a type's map accepts, for error messages.
fn known_names(fields: &[&Field]) -> TokenStream {
    let names = fields.iter().map(|f| &f.wire_name);
    quote!(&[#(#names),*])
}

fn known_tags(variants: &[Variant]) -> TokenStream {
    let tags = variants.iter().map(|v| v.tag.to_string());
    quote!(&[#(#tags),*])
}

/// Decodes one field's value; errors get the field's name (or index) on their path.
fn field_value(cont: &Container, field: &Field, fmt: Fmt) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let name = fmt.decode_fn();
    let ty = field.ty;
    match field.attrs.with.get() {
        Some(path) => quote!(#path::#name(__r)),
        None => quote_spanned!(ty.span()=> <#ty as #p::Codec>::#name(__r)),
    }
}

/// The value of a field absent from the input: its default, or a missing-field error.
fn missing_value(cont: &Container, field: &Field) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let name = &field.wire_name;
    match field.attrs.default.get() {
        Some(attr::Default::Default) => {
            let ty = field.ty;
            quote_spanned!(ty.span()=> <#ty as #p::DefaultForMissing>::default_for_missing())
        }
        Some(attr::Default::Path(path)) => quote!(#path()),
        None => match cont.attrs.default.get() {
            Some(_) => {
                let member = &field.member;
                quote!(<Self as #p::Default>::default().#member)
            }
            None => quote!(return #p::Err(__r.locate(#p::DecodeError::missing_field(#name)))),
        },
    }
}

/// A skipped field's value: its default.
fn skipped_value(cont: &Container, field: &Field) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    match field.attrs.default.get() {
        Some(attr::Default::Path(path)) => quote!(#path()),
        _ => {
            let ty = field.ty;
            quote_spanned!(ty.span()=> <#ty as #p::DefaultForMissing>::default_for_missing())
        }
    }
}

fn construct(
    path: &TokenStream,
    style: Style,
    fields: &[Field],
    values: &[TokenStream],
) -> TokenStream {
    match style {
        Style::Named => {
            let members = fields.iter().map(|f| &f.member);
            quote!(#path { #(#members: #values),* })
        }
        Style::Unit => quote!(#path),
        Style::Newtype | Style::Tuple => quote!(#path( #(#values),* )),
    }
}

/// The key matching arm for an unknown key: the union's tag is skipped,
/// anything else skipped or refused per `deny_unknown_fields`.
fn unknown_key(cont: &Container, live: &[&Field], fmt: Fmt) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let tag_bytes = match fmt {
        Fmt::MsgPack => quote!(__tag),
        Fmt::Json => quote!(__tag.as_bytes()),
    };
    let deny = cont.deny_unknown_fields().then(|| {
        let known = known_names(live);
        quote! {
            if #tag_bytes.is_empty() || __other != #tag_bytes {
                return #p::Err(__r.locate(#p::DecodeError::unknown_field(__other, #known)));
            }
        }
    });
    quote! {
        __other => {
            #deny
            __r.skip_value()?;
        }
    }
}

/// A map of named fields, to its end; evaluates to `Result<#path, DecodeError>`.
fn named_body(cont: &Container, fields: &[Field], path: TokenStream, fmt: Fmt) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let live: Vec<&Field> = fields.iter().filter(|f| !f.is_skipped()).collect();
    let slots: Vec<_> = (0..fields.len())
        .map(|i| format_ident!("__v{}", i))
        .collect();
    let mut decls = Vec::new();
    let mut arms = Vec::new();
    let mut values = Vec::new();
    for (field, slot) in fields.iter().zip(&slots) {
        if field.is_skipped() {
            values.push(skipped_value(cont, field));
            continue;
        }
        let ty = field.ty;
        let name = &field.wire_name;
        let keys = field
            .accepted_names()
            .into_iter()
            .map(|n| wire::bytes(n.as_bytes()));
        let value = field_value(cont, field, fmt);
        decls.push(quote!(let mut #slot: #p::Option<#ty> = #p::None;));
        arms.push(quote! {
            #(#keys)|* => {
                if #slot.is_some() {
                    return #p::Err(__r.locate(#p::DecodeError::duplicate_field(#name)));
                }
                #slot = #p::Some(#value.map_err(|__e| __e.in_field(#name))?);
            }
        });
        let missing = missing_value(cont, field);
        values.push(quote! {
            match #slot {
                #p::Some(__v) => __v,
                #p::None => #missing,
            }
        });
    }
    let unknown = unknown_key(cont, &live, fmt);
    let constructed = construct(&path, Style::Named, fields, &values);
    let lp = match fmt {
        Fmt::MsgPack => quote! {
            for _ in 0..__len {
                let __key = __r.read_str_bytes()?;
                match __key {
                    #(#arms)*
                    #unknown
                }
            }
        },
        Fmt::Json => quote! {
            while let #p::Some(__key) = __r.next_key(&mut __first)? {
                match __key.as_bytes() {
                    #(#arms)*
                    #unknown
                }
            }
        },
    };
    quote! {{
        #(#decls)*
        #lp
        #p::Ok::<_, #p::DecodeError>(#constructed)
    }}
}

/// An array of fields, in order, to its end; evaluates to `Result<#path, DecodeError>`.
/// Trailing fields with a default may be absent; extra elements are refused
/// when `strict`, else skipped. `offset` counts elements before the fields (a tag).
fn array_body(
    cont: &Container,
    fields: &[Field],
    path: TokenStream,
    style: Style,
    offset: usize,
    strict: bool,
    fmt: Fmt,
) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let live: Vec<&Field> = fields.iter().filter(|f| !f.is_skipped()).collect();
    let total = live.len() + offset;
    let required = offset
        + live
            .iter()
            .rposition(|f| f.attrs.default.get().is_none() && cont.attrs.default.get().is_none())
            .map_or(0, |i| i + 1);
    let expected = if required == total {
        format!("an array of {total} elements")
    } else {
        format!("an array of {required} to {total} elements")
    };
    let mut stmts = Vec::new();
    let mut values = Vec::new();
    let mut index = offset;
    for (i, field) in fields.iter().enumerate() {
        let slot = format_ident!("__v{}", i);
        if field.is_skipped() {
            values.push(skipped_value(cont, field));
            continue;
        }
        let value = field_value(cont, field, fmt);
        let missing = if index < required {
            quote!(return #p::Err(__r.locate(#p::DecodeError::invalid_length(#expected, #index))))
        } else {
            missing_value(cont, field)
        };
        let present = match fmt {
            Fmt::MsgPack => quote!(#index < __len),
            Fmt::Json => quote!(
                __open && {
                    __open = __r.next_element(&mut __first)?;
                    __open
                }
            ),
        };
        stmts.push(quote! {
            let #slot = if #present {
                #value.map_err(|__e| __e.in_index(#index))?
            } else {
                #missing
            };
        });
        values.push(quote!(#slot));
        index += 1;
    }
    let extra = if strict {
        quote!(return #p::Err(__r.locate(#p::DecodeError::invalid_length(#expected, __len)));)
    } else {
        quote!()
    };
    let (prologue, epilogue) = match fmt {
        Fmt::MsgPack => (
            quote!(),
            quote! {
                if __len > #total {
                    #extra
                    for _ in #total..__len {
                        __r.skip_value()?;
                    }
                }
            },
        ),
        Fmt::Json => (
            quote!(let mut __open = true;),
            quote! {
                if __open {
                    let mut __len = #total;
                    while __r.next_element(&mut __first)? {
                        __len += 1;
                        if #strict {
                            // Count the rest for the message, then refuse.
                            __r.skip_value()?;
                            while __r.next_element(&mut __first)? {
                                __len += 1;
                                __r.skip_value()?;
                            }
                            #extra
                        }
                        __r.skip_value()?;
                    }
                    let _ = __len;
                }
            },
        ),
    };
    let constructed = construct(&path, style, fields, &values);
    quote! {{
        #prologue
        #(#stmts)*
        #epilogue
        #p::Ok::<_, #p::DecodeError>(#constructed)
    }}
}

/// Reads a tag and returns the index of its variant: a local function, so the
/// fast and slow paths of a tagged map share it.
fn variant_index_fn(cont: &Container, variants: &[Variant], fmt: Fmt) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let reader = fmt.reader(&p);
    let known = known_tags(variants);
    let int_tags = matches!(variants.first().map(|v| &v.tag), Some(TagValue::Int(_)));
    let (read, matched, shown) = if int_tags {
        (
            quote!(let __t: i64 = __r.read_int("an integer tag")?;),
            quote!(__t),
            quote!(__t.to_string()),
        )
    } else {
        match fmt {
            Fmt::MsgPack => (
                quote!(let __t = __r.read_str_bytes()?;),
                quote!(__t),
                quote!(#p::String::from_utf8_lossy(__t).into_owned()),
            ),
            Fmt::Json => (
                quote!(let __t = __r.read_str()?;),
                quote!(__t.as_bytes()),
                quote!(#p::String::from(&*__t)),
            ),
        }
    };
    let arms = variants.iter().enumerate().map(|(i, v)| {
        let pats = v.accepted_tags().into_iter().map(|t| tag_pattern(&t));
        quote!(#(#pats)|* => #p::Ok(#i),)
    });
    quote! {
        fn __variant_index(__r: &mut #reader) -> #p::Result<usize, #p::DecodeError> {
            let __start = __r.position();
            #read
            match #matched {
                #(#arms)*
                _ => {
                    __r.seek(__start);
                    #p::Err(__r.locate(#p::DecodeError::unknown_tag(#shown, #known)))
                }
            }
        }
    }
}

fn tag_pattern(tag: &TagValue) -> TokenStream {
    match tag {
        TagValue::Str(s) => {
            let b = wire::bytes(s.as_bytes());
            quote!(#b)
        }
        TagValue::Int(i) => quote!(#i),
    }
}

/// A JSON object key naming a unit variant: the variant's index.
fn variant_index_from_key(cont: &Container, variants: &[Variant]) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let known = known_tags(variants);
    let int_tags = matches!(variants.first().map(|v| &v.tag), Some(TagValue::Int(_)));
    let arms = variants.iter().enumerate().map(|(i, v)| {
        let pats = v.accepted_tags().into_iter().map(|t| tag_pattern(&t));
        quote!(#(#pats)|* => #i,)
    });
    let matched = if int_tags {
        quote!(__key.parse::<i64>().unwrap_or(i64::MIN))
    } else {
        quote!(__key.as_bytes())
    };
    quote! {
        match #matched {
            #(#arms)*
            _ => return #p::Err(__r.locate(#p::DecodeError::unknown_tag(__key, #known))),
        }
    }
}

fn unit_enum(cont: &Container, variants: &[Variant], fmt: Fmt) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let index_fn = variant_index_fn(cont, variants, fmt);
    let arms = variants.iter().enumerate().map(|(i, v)| {
        let ident = v.ident;
        quote!(#i => #p::Ok(Self::#ident),)
    });
    quote! {
        #index_fn
        match __variant_index(__r)? {
            #(#arms)*
            _ => #p::Err(__r.error(#p::DecodeErrorKind::InvalidValue {
                message: #p::String::from("variant index out of range"),
            })),
        }
    }
}

fn tagged_map(cont: &Container, variants: &[Variant], fmt: Fmt) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let index_fn = variant_index_fn(cont, variants, fmt);
    let tag_field = cont.tag_field();
    let arms = variants.iter().enumerate().map(|(i, v)| {
        let body = tagged_map_variant(cont, v, fmt);
        quote!(#i => #body,)
    });
    let fallback = quote! {
        _ => #p::Err(__r.error(#p::DecodeErrorKind::InvalidValue {
            message: #p::String::from("variant index out of range"),
        })),
    };
    match fmt {
        Fmt::MsgPack => {
            let tag = wire::bytes(tag_field.as_bytes());
            quote! {
                #index_fn
                let __start = __r.position();
                let __map_len = __r.read_map_len()?;
                __r.enter()?;
                let __tag: &[u8] = #tag;
                let __body = __r.position();
                let mut __found = #p::None;
                if __map_len > 0 && __r.read_str_bytes()? == __tag {
                    __found = #p::Some((__variant_index(__r)?, __map_len - 1));
                }
                let (__variant, __len) = match __found {
                    #p::Some(__found) => __found,
                    #p::None => {
                        // The tag is not first: find it, then read the map again.
                        __r.seek(__body);
                        let mut __index = #p::None;
                        for _ in 0..__map_len {
                            if __r.read_str_bytes()? == __tag {
                                __index = #p::Some(__variant_index(__r)?);
                                break;
                            }
                            __r.skip_value()?;
                        }
                        match __index {
                            #p::Some(__index) => {
                                __r.seek(__body);
                                (__index, __map_len)
                            }
                            #p::None => {
                                __r.seek(__start);
                                return #p::Err(__r.locate(#p::DecodeError::missing_tag(#tag_field)));
                            }
                        }
                    }
                };
                let __value = match __variant {
                    #(#arms)*
                    #fallback
                };
                __r.leave();
                __value
            }
        }
        Fmt::Json => quote! {
            #index_fn
            let __start = __r.position();
            __r.begin_object()?;
            let __tag: &str = #tag_field;
            let __body = __r.position();
            let mut __first = true;
            let __variant = match __r.next_key(&mut __first)? {
                #p::Some(__key) if __key == __tag => __variant_index(__r)?,
                mut __key => {
                    // The tag is not first: find it, then read the object again.
                    loop {
                        match __key {
                            #p::Some(__k) if __k == __tag => break,
                            #p::Some(_) => {
                                __r.skip_value()?;
                                __key = __r.next_key(&mut __first)?;
                            }
                            #p::None => {
                                __r.seek(__start);
                                return #p::Err(__r.locate(#p::DecodeError::missing_tag(#tag_field)));
                            }
                        }
                    }
                    let __index = __variant_index(__r)?;
                    __r.seek(__body);
                    __first = true;
                    __index
                }
            };
            match __variant {
                #(#arms)*
                #fallback
            }
        },
    }
}

/// One variant of a tagged map, the tag already known; evaluates to `Result<Self, _>`.
fn tagged_map_variant(cont: &Container, variant: &Variant, fmt: Fmt) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let ident = variant.ident;
    let path = quote!(Self::#ident);
    match variant.style {
        Style::Named => named_body(cont, &variant.fields, path, fmt),
        Style::Unit => named_body(cont, &[], path, fmt),
        Style::Newtype | Style::Tuple => {
            let content = cont.content_field();
            let content_key = wire::bytes(content.as_bytes());
            let payload = if variant.style == Style::Newtype {
                let value = field_value(cont, &variant.fields[0], fmt);
                quote!(#value.map(#path))
            } else {
                let body = array_body(
                    cont,
                    &variant.fields,
                    path.clone(),
                    Style::Tuple,
                    0,
                    true,
                    fmt,
                );
                match fmt {
                    Fmt::MsgPack => quote!({
                        let __len = __r.read_array_len()?;
                        __r.enter()?;
                        let __value = #body;
                        __r.leave();
                        __value
                    }),
                    Fmt::Json => quote!({
                        __r.begin_array()?;
                        let mut __first = true;
                        #body
                    }),
                }
            };
            let unknown = unknown_key(cont, &[], fmt);
            let (lp, key) = match fmt {
                Fmt::MsgPack => (quote!(for _ in 0..__len), quote!(__r.read_str_bytes()?)),
                Fmt::Json => (
                    quote!(while let #p::Some(__key) = __r.next_key(&mut __first)?),
                    quote!(__key.as_bytes()),
                ),
            };
            let unmerged = quote! {{
                let mut __payload: #p::Option<Self> = #p::None;
                #lp {
                    match #key {
                        #content_key => {
                            if __payload.is_some() {
                                return #p::Err(__r.locate(#p::DecodeError::duplicate_field(#content)));
                            }
                            __payload = #p::Some(#payload.map_err(|__e| __e.in_field(#content))?);
                        }
                        #unknown
                    }
                }
                match __payload {
                    #p::Some(__v) => #p::Ok(__v),
                    #p::None => #p::Err(__r.locate(#p::DecodeError::missing_field(#content))),
                }
            }};
            let field = &variant.fields[0];
            if variant.style == Style::Tuple || field.attrs.with.is_set() {
                return unmerged;
            }
            let ty = field.ty;
            let merged = match fmt {
                Fmt::MsgPack => {
                    quote!(<#ty as #p::Codec>::__decode_msgpack_body(__r, __len, __tag))
                }
                Fmt::Json => quote!(<#ty as #p::Codec>::__decode_json_body(__r, __first, __tag)),
            };
            quote! {
                if <#ty as #p::Codec>::__MAP_BODY {
                    #merged.map(#path)
                } else #unmerged
            }
        }
    }
}

fn tagged_array(cont: &Container, variants: &[Variant], fmt: Fmt) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let index_fn = variant_index_fn(cont, variants, fmt);
    let strict = cont.deny_unknown_fields();
    let arms = variants.iter().enumerate().map(|(i, v)| {
        let ident = v.ident;
        let body = array_body(
            cont,
            &v.fields,
            quote!(Self::#ident),
            v.style,
            1,
            strict,
            fmt,
        );
        quote!(#i => #body,)
    });
    let fallback = quote! {
        _ => #p::Err(__r.error(#p::DecodeErrorKind::InvalidValue {
            message: #p::String::from("variant index out of range"),
        })),
    };
    match fmt {
        Fmt::MsgPack => quote! {
            #index_fn
            let __len = __r.read_array_len()?;
            if __len == 0 {
                return #p::Err(__r.locate(#p::DecodeError::invalid_length("an array starting with a tag", 0)));
            }
            __r.enter()?;
            let __variant = __variant_index(__r)?;
            let __value = match __variant {
                #(#arms)*
                #fallback
            };
            __r.leave();
            __value
        },
        Fmt::Json => quote! {
            #index_fn
            __r.begin_array()?;
            let mut __first = true;
            if !__r.next_element(&mut __first)? {
                return #p::Err(__r.locate(#p::DecodeError::invalid_length("an array starting with a tag", 0)));
            }
            let __variant = __variant_index(__r)?;
            match __variant {
                #(#arms)*
                #fallback
            }
        },
    }
}

/// An untagged union: the variant is the one whose wire kind the next value has.
fn untagged(cont: &Container, variants: &[Variant], fmt: Fmt) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let type_name = cont.ident.to_string();
    let kinds: Vec<TokenStream> = variants
        .iter()
        .map(|v| {
            let kind = v.kind_expr(krate);
            match fmt {
                Fmt::MsgPack => kind,
                Fmt::Json => quote!(#kind.in_json()),
            }
        })
        .collect();
    let names: Vec<String> = variants.iter().map(|v| v.ident.to_string()).collect();
    let arms = variants.iter().enumerate().map(|(i, v)| {
        let ident = v.ident;
        let path = quote!(Self::#ident);
        let name = &names[i];
        let body = match (v.style, fmt) {
            (Style::Unit, Fmt::MsgPack) => quote!(__r.read_nil().map(|()| #path)),
            (Style::Unit, Fmt::Json) => quote!(__r.read_null().map(|()| #path)),
            (Style::Newtype, _) => {
                let value = field_value(cont, &v.fields[0], fmt);
                quote!(#value.map(#path))
            }
            (Style::Tuple, _) => {
                let body = array_body(cont, &v.fields, path, Style::Tuple, 0, true, fmt);
                match fmt {
                    Fmt::MsgPack => quote!({
                        let __len = __r.read_array_len()?;
                        __r.enter()?;
                        let __value = #body;
                        __r.leave();
                        __value
                    }),
                    Fmt::Json => quote!({
                        __r.begin_array()?;
                        let mut __first = true;
                        #body
                    }),
                }
            }
            (Style::Named, _) => {
                let body = named_body(cont, &v.fields, path, fmt);
                match fmt {
                    Fmt::MsgPack => quote!({
                        let __len = __r.read_map_len()?;
                        let __tag: &[u8] = b"";
                        __r.enter()?;
                        let __value = #body;
                        __r.leave();
                        __value
                    }),
                    Fmt::Json => quote!({
                        __r.begin_object()?;
                        let __tag: &str = "";
                        let mut __first = true;
                        #body
                    }),
                }
            }
        };
        quote!(#p::Some(#i) => #body.map_err(|__e| __e.in_variant(#name)),)
    });
    let count = variants.len();
    let indices = 0..count;
    quote! {
        // Evaluates the const checks that no two variants share a kind.
        let _: #p::WireKind = <Self as #p::Codec>::KIND;
        let __kinds: [#p::WireKind; #count] = [#(#kinds),*];
        let __found = __r.peek_kind()?;
        match #p::untagged_variant(&__kinds, __found) {
            #(#arms)*
            _ => {
                let __named = [#((#names, __kinds[#indices])),*];
                #p::Err(__r.locate(#p::untagged_mismatch(#type_name, &__named, __found)))
            }
        }
    }
}
