//! Decoders of enums: unit-only, tagged maps, tagged arrays, untagged.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt as _;

use super::{
    array_body, field_value, in_array, in_map, index_out_of_range, known_tags, named_body,
    unknown_key, Fmt,
};
use crate::ast::{Container, Style, TagValue, Variant};
use crate::encoded;

/// Reads a tag and returns the index of its variant: a local function, so the
/// fast and slow paths of a tagged map share it.
fn variant_index_fn(cont: &Container, variants: &[Variant], fmt: Fmt) -> TokenStream {
    let p = cont.private();
    let reader = fmt.local_reader(&p);
    let known = known_tags(variants);
    let int_tags = matches!(variants.first().map(|v| &v.tag), Some(TagValue::Int(_)));
    // The unknown tag's error is built out of line, so the read inlines.
    let (read, matched, ty, passed, shown) = if int_tags {
        (
            quote!(let __t: i64 = __r.read_int("an integer tag")?;),
            quote!(__t),
            quote!(i64),
            quote!(__t),
            quote!(#p::ToString::to_string(&__t)),
        )
    } else {
        match fmt {
            Fmt::MsgPack => (
                quote!(let __t = __r.read_str_bytes()?;),
                quote!(__t),
                quote!(&[u8]),
                quote!(__t),
                quote!(#p::String::from_utf8_lossy(__t).into_owned()),
            ),
            Fmt::Json => (
                quote!(let __t = __r.read_str()?;),
                quote!(__t.as_bytes()),
                quote!(&str),
                quote!(&*__t),
                quote!(<#p::String as #p::From<&str>>::from(__t)),
            ),
        }
    };
    let arms = variants.iter().enumerate().map(|(i, v)| {
        let pats = v.accepted_tags().into_iter().map(|t| tag_pattern(&t));
        quote!(#(#pats)|* => #p::Ok(#i),)
    });
    quote! {
        #[inline(always)]
        fn __variant_index(__r: &mut #reader) -> #p::Result<usize, #p::DecodeError> {
            let __start = __r.position();
            #read
            match #matched {
                #(#arms)*
                _ => __unknown_tag(__r, __start, #passed),
            }
        }

        #[cold]
        #[inline(never)]
        fn __unknown_tag(
            __r: &mut #reader,
            __start: usize,
            __t: #ty,
        ) -> #p::Result<usize, #p::DecodeError> {
            __r.seek(__start);
            #p::Err(__r.locate(#p::DecodeError::unknown_tag(#shown, #known)))
        }
    }
}

fn tag_pattern(tag: &TagValue) -> TokenStream {
    match tag {
        TagValue::Str(s) => {
            let b = encoded::bytes(s.as_bytes());
            quote!(#b)
        }
        TagValue::Int(i) => quote!(#i),
    }
}

/// A JSON object key naming a unit variant: the variant's index.
pub(super) fn variant_index_from_key(cont: &Container, variants: &[Variant]) -> TokenStream {
    let p = cont.private();
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

pub(super) fn unit_enum(cont: &Container, variants: &[Variant], fmt: Fmt) -> TokenStream {
    let p = cont.private();
    let index_fn = variant_index_fn(cont, variants, fmt);
    let arms = variants.iter().enumerate().map(|(i, v)| {
        let ident = v.ident;
        quote!(#i => #p::Ok(Self::#ident),)
    });
    let fallback = index_out_of_range(cont);
    quote! {
        #index_fn
        match __variant_index(__r)? {
            #(#arms)*
            #fallback,
        }
    }
}

pub(super) fn tagged_map(cont: &Container, variants: &[Variant], fmt: Fmt) -> TokenStream {
    let index_fn = variant_index_fn(cont, variants, fmt);
    let arms: Vec<TokenStream> = variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let body = tagged_map_variant(cont, v, fmt);
            quote!(#i => #body,)
        })
        .collect();
    let fallback = index_out_of_range(cont);
    let arms = quote!(#(#arms)* #fallback);
    match fmt {
        Fmt::MsgPack => tagged_map_msgpack(cont, index_fn, arms),
        Fmt::Json => tagged_map_json(cont, index_fn, arms),
    }
}

/// [`tagged_map`] in MessagePack: the tag read first when it comes first,
/// else found in the map, which is then read again from its start.
fn tagged_map_msgpack(cont: &Container, index_fn: TokenStream, arms: TokenStream) -> TokenStream {
    let p = cont.private();
    let tag_field = cont.tag_field();
    let tag = encoded::bytes(tag_field.as_bytes());
    let encoded_tag = encoded::bytes(&encoded::msgpack_str(tag_field));
    quote! {
        #index_fn
        let __start = __r.position();
        let __map_len = __r.read_map_len()?;
        __r.nested(|__r| {
            let __tag: &[u8] = #tag;
            let __body = __r.position();
            let mut __found = #p::None;
            if __map_len > 0 && __r.next_key_is(#encoded_tag) {
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
            match __variant {
                #arms
            }
        })
    }
}

/// [`tagged_map`] in JSON, the same way as in MessagePack.
fn tagged_map_json(cont: &Container, index_fn: TokenStream, arms: TokenStream) -> TokenStream {
    let p = cont.private();
    let tag_field = cont.tag_field();
    let quoted_tag = encoded::json_bytes(&encoded::json_str(tag_field));
    quote! {
        #index_fn
        let __start = __r.position();
        __r.begin_object()?;
        let __tag: &str = #tag_field;
        let __body = __r.position();
        let mut __first = true;
        let __variant = if __r.next_key_is(&mut __first, #quoted_tag) {
            __variant_index(__r)?
        } else {
            // The tag is not first: find it, then read the object again.
            let mut __key = __r.next_key(&mut __first)?;
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
        };
        match __variant {
            #arms
        }
    }
}

/// One variant of a tagged map, the tag already known; evaluates to `Result<Self, _>`.
fn tagged_map_variant(cont: &Container, variant: &Variant, fmt: Fmt) -> TokenStream {
    let p = cont.private();
    let ident = variant.ident;
    let path = quote!(Self::#ident);
    match variant.style {
        Style::Named => named_body(cont, &variant.fields, path, fmt),
        Style::Unit => named_body(cont, &[], path, fmt),
        Style::Newtype | Style::Tuple => {
            let content = cont.content_field();
            let content_key = encoded::bytes(content.as_bytes());
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
                in_array(body, fmt)
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
            let codec = cont.decode_trait();
            let merged = match fmt {
                Fmt::MsgPack => {
                    quote!(<#ty as #codec>::__decode_msgpack_body(__r, __len, __tag))
                }
                Fmt::Json => quote!(<#ty as #codec>::__decode_json_body(__r, __first, __tag)),
            };
            quote! {
                if <#ty as #p::Schema>::__MAP_BODY {
                    #merged.map(#path)
                } else #unmerged
            }
        }
    }
}

pub(super) fn tagged_array(cont: &Container, variants: &[Variant], fmt: Fmt) -> TokenStream {
    let p = cont.private();
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
    let fallback = index_out_of_range(cont);
    match fmt {
        Fmt::MsgPack => quote! {
            #index_fn
            let __len = __r.read_array_len()?;
            if __len == 0 {
                return #p::Err(__r.locate(#p::DecodeError::invalid_length("an array starting with a tag", 0)));
            }
            __r.nested(|__r| {
                let __variant = __variant_index(__r)?;
                match __variant {
                    #(#arms)*
                    #fallback
                }
            })
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
pub(super) fn untagged(cont: &Container, variants: &[Variant], fmt: Fmt) -> TokenStream {
    let p = cont.private();
    let type_name = cont.ident.unraw().to_string();
    let kinds: Vec<TokenStream> = variants
        .iter()
        .map(|v| {
            let kind = v.kind_expr(cont);
            match fmt {
                Fmt::MsgPack => kind,
                Fmt::Json => quote!(#kind.in_json()),
            }
        })
        .collect();
    let names: Vec<String> = variants
        .iter()
        .map(|v| v.ident.unraw().to_string())
        .collect();
    let arms = variants.iter().enumerate().map(|(i, v)| {
        let ident = v.ident;
        let path = quote!(Self::#ident);
        let name = &names[i];
        let body = match (v.style, fmt) {
            (Style::Unit, _) => quote!(__r.read_nil().map(|()| #path)),
            (Style::Newtype, _) => {
                let value = field_value(cont, &v.fields[0], fmt);
                quote!(#value.map(#path))
            }
            (Style::Tuple, _) => in_array(
                array_body(cont, &v.fields, path, Style::Tuple, 0, true, fmt),
                fmt,
            ),
            (Style::Named, _) => in_map(named_body(cont, &v.fields, path, fmt), fmt),
        };
        quote!(#p::Some(#i) => #body.map_err(|__e| __e.in_variant(#name)),)
    });
    let count = variants.len();
    let indices = 0..count;
    quote! {
        // Evaluates the const checks that no two variants share a kind.
        let _: #p::WireKind = <Self as #p::Schema>::KIND;
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
