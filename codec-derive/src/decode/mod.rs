//! The decoders: `decode_msgpack`, `decode_json` and the map-body hooks.
//!
//! Generated code reads the wire directly: no intermediate tree. A tagged
//! union whose tag comes first decodes in one pass; a tag elsewhere is found
//! by a scan of the map's keys, then the map is read again from its start.
//!
//! Snippets below refer to the locals every generated decoder declares:
//! `__r` (the reader), `__len` (entries or elements left), `__tag` (a key to
//! ignore: the tag of an enclosing union, or empty) and, for JSON, `__first`.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Container, EnumRepr, Field, Style, Variant};
use crate::attr;
use crate::encoded;

mod enums;
use enums::{tagged_array, tagged_map, unit_enum, untagged, variant_index_from_key};

#[derive(Clone, Copy, PartialEq)]
enum Fmt {
    MsgPack,
    Json,
}

impl Fmt {
    /// The reader type of a decoder's signature: over the input `'__de` a
    /// borrowing type's values point into.
    fn reader(self, cont: &Container) -> TokenStream {
        let p = cont.private();
        match self {
            Fmt::MsgPack => quote!(#p::MsgpackReader<'__de>),
            Fmt::Json => quote!(#p::JsonReader<'__de>),
        }
    }

    /// The reader type of a local function, which returns nothing borrowed.
    fn local_reader(self, p: &TokenStream) -> TokenStream {
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

    /// `BorrowCow`'s reader of a `Cow` field that borrows.
    fn borrow_fn(self) -> TokenStream {
        match self {
            Fmt::MsgPack => quote!(borrow_msgpack),
            Fmt::Json => quote!(borrow_json),
        }
    }
}

/// Methods decoding a struct.
pub fn struct_items(cont: &Container, style: Style, fields: &[Field]) -> TokenStream {
    let p = cont.private();
    match style {
        Style::Named if !cont.attrs.array_like.is_set() => map_struct_items(cont, fields),
        Style::Named | Style::Tuple => {
            let strict = style == Style::Tuple || cont.deny_unknown_fields();
            let msgpack = in_array(
                array_body(cont, fields, quote!(Self), style, 0, strict, Fmt::MsgPack),
                Fmt::MsgPack,
            );
            let json = in_array(
                array_body(cont, fields, quote!(Self), style, 0, strict, Fmt::Json),
                Fmt::Json,
            );
            decoders(cont, msgpack, json)
        }
        Style::Newtype => {
            let field = &fields[0];
            let msgpack = field_value(cont, field, Fmt::MsgPack);
            let json = field_value(cont, field, Fmt::Json);
            decoders(
                cont,
                quote! {
                    let __value = __r.nested(|__r| #msgpack)?;
                    #p::Ok(Self(__value))
                },
                quote! {
                    let __value = __r.nested(|__r| #json)?;
                    #p::Ok(Self(__value))
                },
            )
        }
        Style::Unit => {
            let nil = quote!(__r.read_nil().map(|()| Self));
            decoders(cont, nil.clone(), nil)
        }
    }
}

/// `decode_msgpack` and `decode_json` with the given bodies.
fn decoders(cont: &Container, msgpack: TokenStream, json: TokenStream) -> TokenStream {
    let p = cont.private();
    let (msgpack_reader, json_reader) = (Fmt::MsgPack.reader(cont), Fmt::Json.reader(cont));
    let undivert = cont.undivert();
    quote! {
        #[inline]
        fn decode_msgpack(__r: &mut #msgpack_reader) -> #p::Result<Self, #p::DecodeError> {
            #undivert
            #msgpack
        }

        #[inline]
        fn decode_json(__r: &mut #json_reader) -> #p::Result<Self, #p::DecodeError> {
            #json
        }
    }
}

/// The methods of a struct that is a map of its fields: the decoders read
/// the map's header, and the body hooks its entries (a tagged union's
/// newtype variant reads the body after its tag).
fn map_struct_items(cont: &Container, fields: &[Field]) -> TokenStream {
    let p = cont.private();
    let msgpack = named_body(cont, fields, quote!(Self), Fmt::MsgPack);
    let json = named_body(cont, fields, quote!(Self), Fmt::Json);
    let codec = cont.decode_trait();
    let (msgpack_reader, json_reader) = (Fmt::MsgPack.reader(cont), Fmt::Json.reader(cont));
    let decoders = decoders(
        cont,
        quote! {
            let __len = __r.read_map_len()?;
            <Self as #codec>::__decode_msgpack_body(__r, __len, b"")
        },
        quote! {
            __r.begin_object()?;
            <Self as #codec>::__decode_json_body(__r, true, "")
        },
    );
    quote! {
        #decoders

        #[inline]
        fn __decode_msgpack_body(
            __r: &mut #msgpack_reader,
            __len: usize,
            __tag: &[u8],
        ) -> #p::Result<Self, #p::DecodeError> {
            __r.nested(|__r| #msgpack)
        }

        #[inline]
        fn __decode_json_body(
            __r: &mut #json_reader,
            __first: bool,
            __tag: &str,
        ) -> #p::Result<Self, #p::DecodeError> {
            let mut __first = __first;
            #json
        }
    }
}

/// Methods decoding an enum.
pub fn enum_items(cont: &Container, variants: &[Variant], repr: EnumRepr) -> TokenStream {
    let p = cont.private();
    let mut items = TokenStream::new();
    for fmt in [Fmt::MsgPack, Fmt::Json] {
        let reader = fmt.reader(cont);
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
        let fallback = index_out_of_range(cont);
        let arms = variants.iter().enumerate().map(|(i, v)| {
            let ident = v.ident;
            quote!(#i => #p::Ok(Self::#ident),)
        });
        items.extend(quote! {
            fn __decode_json_key(__r: &mut #p::JsonReader<'__de>, __key: #p::Cow<'__de, str>) -> #p::Result<Self, #p::DecodeError> {
                let __key: &str = &__key;
                match #index {
                    #(#arms)*
                    #fallback,
                }
            }
        });
    }
    items
}

/// The arm for a variant index no variant has: unreachable, since indices come
/// from the generated `__variant_index`, but an error rather than a panic.
fn index_out_of_range(cont: &Container) -> TokenStream {
    let p = cont.private();
    quote! {
        _ => #p::Err(__r.error(#p::DecodeErrorKind::InvalidValue {
            message: <#p::String as #p::From<&str>>::from("variant index out of range"),
        }))
    }
}

/// Reads a whole array around `body` (from [`array_body`]): its header, one
/// level of depth, and the locals the body uses.
fn in_array(body: TokenStream, fmt: Fmt) -> TokenStream {
    match fmt {
        Fmt::MsgPack => quote!({
            let __len = __r.read_array_len()?;
            __r.nested(|__r| #body)
        }),
        Fmt::Json => quote!({
            __r.begin_array()?;
            let mut __first = true;
            #body
        }),
    }
}

/// Reads a whole map around `body` (from [`named_body`]), with no tag to skip.
fn in_map(body: TokenStream, fmt: Fmt) -> TokenStream {
    match fmt {
        Fmt::MsgPack => quote!({
            let __len = __r.read_map_len()?;
            let __tag: &[u8] = b"";
            __r.nested(|__r| #body)
        }),
        Fmt::Json => quote!({
            __r.begin_object()?;
            let __tag: &str = "";
            let mut __first = true;
            #body
        }),
    }
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
    let name = fmt.decode_fn();
    let ty = field.ty;
    let value = match field.attrs.with.get() {
        Some(path) => quote!(#path::#name(__r)),
        None => {
            let p = cont.private();
            let borrow = fmt.borrow_fn();
            // A `Cow` that borrows reads borrowed (a `Cow`'s own `Decode`
            // is owned, as in serde).
            let decode = match cont.field_borrows(field) && crate::ast::is_cow(ty) {
                true => quote_spanned!(ty.span()=> <#ty as #p::BorrowCow<'__de>>::#borrow),
                false => quote_spanned!(ty.span()=> <#ty as #p::Decode<'__de>>::#name),
            };
            quote!(#decode(__r))
        }
    };
    crate::constraints::decode(cont, field, value)
}

/// The value of a field absent from the input: its default, what nil decodes
/// to for a type that takes nil (an `Option` is `None`) unless the field is
/// `required`, or a missing-field error.
fn missing_value(cont: &Container, field: &Field) -> TokenStream {
    let p = cont.private();
    let name = &field.wire_name;
    let container = quote!(<Self as #p::Default>::default());
    if let Some(value) = crate::default::value(cont, field, &container) {
        return value;
    }
    if field.attrs.required.is_set() || field.attrs.with.is_set() {
        return quote!(return #p::Err(__r.locate(#p::DecodeError::missing_field(#name))));
    }
    let ty = field.ty;
    let kind = cont.field_kind(field);
    quote! {
        match #p::decode_missing::<#ty>(#kind) {
            #p::Some(__v) => __v,
            #p::None => return #p::Err(__r.locate(#p::DecodeError::missing_field(#name))),
        }
    }
}

/// A skipped field's value: its default.
fn skipped_value(cont: &Container, field: &Field) -> TokenStream {
    let p = cont.private();
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
    let p = cont.private();
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
    let p = cont.private();
    let live: Vec<&Field> = fields.iter().filter(|f| !f.is_skipped()).collect();
    let slots: Vec<_> = (0..fields.len())
        .map(|i| format_ident!("__v{}", i))
        .collect();
    let mut decls = Vec::new();
    let mut arms = Vec::new();
    let mut ordered = Vec::new();
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
            .map(|n| encoded::bytes(n.as_bytes()));
        let value = field_value(cont, field, fmt);
        let value = quote!(#value.map_err(|__e| __e.in_field(#name))?);
        decls.push(quote!(let mut #slot: #p::Option<#ty> = #p::None;));
        arms.push(quote! {
            #(#keys)|* => {
                if #slot.is_some() {
                    return #p::Err(__r.locate(#p::DecodeError::duplicate_field(#name)));
                }
                #slot = #p::Some(#value);
            }
        });
        ordered.push(in_order(&p, name, slot, &value, fmt));
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
    // Keys in declaration order, as encoders write them, take one comparison
    // each; from the first other key on, the general loop reads the rest.
    let ordered = (!ordered.is_empty()).then(|| quote!('__ordered: { #(#ordered)* }));
    let lp = match fmt {
        Fmt::MsgPack => quote! {
            let mut __done = 0usize;
            #ordered
            for _ in __done..__len {
                let __key = __r.read_str_bytes()?;
                match __key {
                    #(#arms)*
                    #unknown
                }
            }
        },
        Fmt::Json => quote! {
            #ordered
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

/// The read of a field whose key comes next in declaration order, as
/// encoders write them: one comparison, or leave the ordered reads for the
/// general loop (`'__ordered`).
fn in_order(
    p: &TokenStream,
    name: &str,
    slot: &Ident,
    value: &TokenStream,
    fmt: Fmt,
) -> TokenStream {
    match fmt {
        Fmt::MsgPack => {
            let key = encoded::bytes(&encoded::msgpack_str(name));
            quote! {
                if __done == __len || !__r.next_key_is(#key) {
                    break '__ordered;
                }
                #slot = #p::Some(#value);
                __done += 1;
            }
        }
        Fmt::Json => {
            let key = encoded::json_bytes(&encoded::json_str(name));
            quote! {
                if !__r.next_key_is(&mut __first, #key) {
                    break '__ordered;
                }
                #slot = #p::Some(#value);
            }
        }
    }
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
    let p = cont.private();
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
    let (prologue, epilogue) = array_rest(cont, total, &expected, strict, fmt);
    let constructed = construct(&path, style, fields, &values);
    quote! {{
        #prologue
        #(#stmts)*
        #epilogue
        #p::Ok::<_, #p::DecodeError>(#constructed)
    }}
}

/// What comes around an array's expected elements: the set-up, and after
/// them the elements past the last field, skipped, or refused with the
/// count when `strict` (`deny_unknown_fields`).
fn array_rest(
    cont: &Container,
    total: usize,
    expected: &str,
    strict: bool,
    fmt: Fmt,
) -> (TokenStream, TokenStream) {
    let p = cont.private();
    let extra = if strict {
        quote!(return #p::Err(__r.locate(#p::DecodeError::invalid_length(#expected, __len)));)
    } else {
        quote!()
    };
    match fmt {
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
    }
}
