//! Reads `#[serde(..)]` attributes, as schemars does, so a type deriving both
//! serde's traits and `Codec` gets one wire shape. A key whose meaning is
//! codec's too fills the same value, unless `#[codec(..)]` set it (codec's
//! attribute wins); a key codec cannot honour is a compile error saying the
//! fix, never ignored.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use super::lit::{flag, parse_fn_path, parse_lit_path, parse_string, path_key};
use super::{for_each_meta, parse_default, parse_rule};
use super::{Attr, Container, Field, Variant};
use crate::ctxt::Ctxt;

/// Keys that change nothing on codec's wire: accepted, without effect.
const NO_EFFECT: &[&str] = &["crate", "expecting", "borrow"];

impl<T> Attr<T> {
    /// Sets the value from a serde attribute, unless codec's set it already.
    fn set_from_serde(&mut self, span: Span, value: T) {
        if self.value.is_none() {
            self.value = Some((span, value));
        }
    }
}

/// `rename = "x"`, or `rename(serialize = "x", deserialize = "x")` with one
/// name: codec writes and reads under the same name.
fn one_name(meta: &ParseNestedMeta, key: &str) -> syn::Result<String> {
    if meta.input.peek(syn::Token![=]) {
        return parse_string(meta);
    }
    let mut names = Vec::new();
    meta.parse_nested_meta(|inner| {
        names.push(parse_string(&inner)?);
        Ok(())
    })?;
    match names.as_slice() {
        [one] => Ok(one.clone()),
        [a, b] if a == b => Ok(a.clone()),
        _ => Err(meta.error(format!(
            "codec reads and writes one name: #[serde({key}(serialize = .., deserialize = ..))] with two names cannot be honoured; give one #[serde({key} = \"...\")] or a #[codec({key} = \"...\")]"
        ))),
    }
}

fn refuse(meta: &ParseNestedMeta, why: &str) -> syn::Error {
    // Consume a value, if any, so parsing resumes at the next key.
    if meta.input.peek(syn::Token![=]) {
        let _ = meta
            .value()
            .and_then(syn::parse::ParseBuffer::parse::<syn::Expr>);
    } else if meta.input.peek(syn::token::Paren) {
        let _ = meta.parse_nested_meta(|_| Ok(()));
    }
    let key = path_key(&meta.path);
    syn::Error::new_spanned(
        &meta.path,
        format!("codec cannot honour #[serde({key})]: {why}"),
    )
}

fn ignore_value(meta: &ParseNestedMeta) {
    if meta.input.peek(syn::Token![=]) {
        let _ = meta
            .value()
            .and_then(syn::parse::ParseBuffer::parse::<syn::Expr>);
    } else if meta.input.peek(syn::token::Paren) {
        let _ = meta.parse_nested_meta(|_| Ok(()));
    }
}

const BOUND: &str = "its bounds name serde's traits; write #[codec(bound = \"...\")] with `codec::Codec` bounds (codec's attribute wins, and this one is then left to serde)";
const UNKNOWN: &str = "it is not a serde attribute codec knows; remove it, or say the same with a #[codec(..)] attribute";
const WITH_FNS: &str = "codec calls one module for both directions; write #[codec(with = \"module\")] naming a module with codec's functions (encode_msgpack, decode_msgpack, encode_json, decode_json, json_schema)";

impl Container {
    pub(super) fn read_serde(&mut self, cx: &Ctxt, attrs: &[syn::Attribute]) {
        let codec_bound = self.bound.is_set();
        for_each_meta(cx, attrs, "serde", |meta| {
            let span = meta.path.span();
            let key = path_key(&meta.path);
            match key.as_str() {
                "rename" => self.name.set_from_serde(span, one_name(&meta, "rename")?),
                "rename_all" => {
                    let rule = if meta.input.peek(syn::Token![=]) {
                        parse_rule(&meta)?
                    } else {
                        return Err(refuse(&meta, "codec reads and writes one case style; write #[serde(rename_all = \"...\")] or a #[codec(rename_all = \"...\")]"));
                    };
                    self.rename_all.set_from_serde(span, rule);
                }
                "rename_all_fields" => {
                    if !meta.input.peek(syn::Token![=]) {
                        return Err(refuse(&meta, "codec reads and writes one case style; write #[serde(rename_all_fields = \"...\")]"));
                    }
                    self.rename_all_fields
                        .set_from_serde(span, parse_rule(&meta)?);
                }
                "default" => self.default.set_from_serde(span, parse_default(&meta)?),
                "deny_unknown_fields" => {
                    self.deny_unknown_fields.set_from_serde(span, flag(&meta)?)
                }
                "tag" => self.tag.set_from_serde(span, parse_string(&meta)?),
                "content" => {
                    let content = parse_string(&meta)?;
                    if !self.content.is_set() {
                        self.serde_content = Some(span);
                    }
                    self.content.set_from_serde(span, content);
                }
                "untagged" => self.untagged.set_from_serde(span, flag(&meta)?),
                "bound" if codec_bound => ignore_value(&meta),
                "bound" => return Err(refuse(&meta, BOUND)),
                "transparent" => {
                    flag(&meta)?;
                    self.serde_transparent = Some(span);
                }
                "from" | "try_from" | "into" => {
                    return Err(refuse(&meta, "codec encodes the type itself, not a conversion; implement `Codec` for the type by hand, or derive it on the type converted to and from"));
                }
                "remote" => return Err(refuse(
                    &meta,
                    "derive `Codec` on a local type, or implement it by hand for the remote one",
                )),
                "variant_identifier" | "field_identifier" => {
                    return Err(refuse(&meta, "identifier enums are serde's own machinery; remove the attribute from the type that derives `Codec`"));
                }
                k if NO_EFFECT.contains(&k) => ignore_value(&meta),
                _ => return Err(refuse(&meta, UNKNOWN)),
            }
            Ok(())
        });
    }
}

impl Variant {
    pub(super) fn read_serde(&mut self, cx: &Ctxt, attrs: &[syn::Attribute]) {
        let codec_aliases = !self.aliases.is_empty();
        for_each_meta(cx, attrs, "serde", |meta| {
            let span = meta.path.span();
            let key = path_key(&meta.path);
            match key.as_str() {
                "rename" => self.rename.set_from_serde(span, one_name(&meta, "rename")?),
                "alias" if codec_aliases => ignore_value(&meta),
                "alias" => self.aliases.push(parse_string(&meta)?),
                "rename_all" => {
                    if !meta.input.peek(syn::Token![=]) {
                        return Err(refuse(&meta, "codec reads and writes one case style; write #[serde(rename_all = \"...\")]"));
                    }
                    self.rename_all.set_from_serde(span, parse_rule(&meta)?);
                }
                "skip" | "skip_serializing" | "skip_deserializing" => {
                    return Err(refuse(&meta, "codec writes and reads every variant; remove the variant, or keep it on the wire"));
                }
                "serialize_with" | "deserialize_with" | "with" => return Err(refuse(&meta, WITH_FNS)),
                "bound" => return Err(refuse(&meta, BOUND)),
                "other" => return Err(refuse(&meta, "codec refuses an unknown tag with an error naming the known ones; add the variant, or an alias for the old tag")),
                "untagged" => return Err(refuse(&meta, "codec unions are tagged or untagged as a whole; put #[codec(untagged)] on the enum")),
                k if NO_EFFECT.contains(&k) => ignore_value(&meta),
                _ => return Err(refuse(&meta, UNKNOWN)),
            }
            Ok(())
        });
    }
}

impl Field {
    pub(super) fn read_serde(&mut self, cx: &Ctxt, attrs: &[syn::Attribute]) {
        let codec_aliases = !self.aliases.is_empty();
        let (mut skip_ser, mut skip_de) = (None, None);
        for_each_meta(cx, attrs, "serde", |meta| {
            let span = meta.path.span();
            let key = path_key(&meta.path);
            match key.as_str() {
                "rename" => self.rename.set_from_serde(span, one_name(&meta, "rename")?),
                "alias" if codec_aliases => ignore_value(&meta),
                "alias" => self.aliases.push(parse_string(&meta)?),
                "default" => self.default.set_from_serde(span, parse_default(&meta)?),
                "skip" => self.skip.set_from_serde(span, flag(&meta)?),
                "skip_serializing" => skip_ser = Some((span, flag(&meta)?)),
                "skip_deserializing" => skip_de = Some((span, flag(&meta)?)),
                "skip_serializing_if" => {
                    self.skip_serializing_if
                        .set_from_serde(span, parse_fn_path(&meta)?);
                }
                "with" => self.with.set_from_serde(span, parse_lit_path(&meta)?),
                "serialize_with" | "deserialize_with" => return Err(refuse(&meta, WITH_FNS)),
                "flatten" => {
                    flag(&meta)?;
                    return Err(refuse(&meta, "codec does not flatten a field's map into its parent's; keep the field nested (or, in a tagged union, make the struct a newtype variant: its fields are merged after the tag)"));
                }
                "bound" => return Err(refuse(&meta, BOUND)),
                // `borrow` or `borrow = "'a"`: codec borrows the lifetimes
                // the field's type names.
                "borrow" => {
                    ignore_value(&meta);
                    self.borrow.set_from_serde(span, ());
                }
                "getter" => return Err(refuse(
                    &meta,
                    "derive `Codec` on a local type, or implement it by hand for the remote one",
                )),
                // `crate` and `expecting` are a type's keys: serde refuses
                // them on a field, and so does codec.
                _ => return Err(refuse(&meta, UNKNOWN)),
            }
            Ok(())
        });
        match (skip_ser, skip_de) {
            (Some((span, ())), Some(_)) => self.skip.set_from_serde(span, ()),
            (Some((span, ())), None) => cx.syn_error(syn::Error::new(
                span,
                "codec cannot honour #[serde(skip_serializing)] alone: a value written without the field would not read back; write #[serde(skip)] (both directions), or #[serde(skip_serializing_if = \"...\")] with a default",
            )),
            (None, Some((span, ()))) => cx.syn_error(syn::Error::new(
                span,
                "codec cannot honour #[serde(skip_deserializing)] alone: the field would be written and never read; write #[serde(skip)] (both directions)",
            )),
            (None, None) => {}
        }
    }
}
