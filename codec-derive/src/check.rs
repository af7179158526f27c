//! Rules that span several attributes or items, one `check_*` each.

use std::collections::HashMap;

use crate::ast::{Container, Data, EnumRepr, Field, Style, TagValue, Variant};
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, cont: &Container) {
    check_container_level(cx, cont);
    check_serde_layouts(cx, cont);
    check_omitted_fields(cx, cont);
    check_constraints(cx, cont);
    check_serde_feature(cx, cont);
    check_handler(cx, cont);
    check_borrowing(cx, cont);
    match &cont.data {
        Data::Struct(style, fields) => {
            check_field_attrs(cx, *style, fields, cont.attrs.array_like.is_set());
            if *style == Style::Tuple || cont.attrs.array_like.is_set() {
                check_trailing_defaults(cx, fields);
            }
            check_unique_field_names(cx, fields, None);
        }
        Data::Enum(variants) => {
            check_non_empty_enum(cx, cont, variants);
            check_untagged(cx, cont, variants);
            check_unit_enum_attrs(cx, cont);
            if cont.enum_repr() != Some(EnumRepr::Untagged) {
                check_tag_kinds(cx, variants);
                check_unique_tags(cx, variants);
            }
            for variant in variants {
                check_variant_attrs(cx, variant);
                check_field_attrs(
                    cx,
                    variant.style,
                    &variant.fields,
                    cont.attrs.array_like.is_set(),
                );
                let tag = (cont.enum_repr() == Some(EnumRepr::TaggedMap)).then(|| cont.tag_field());
                check_unique_field_names(cx, &variant.fields, tag);
            }
        }
    }
}

/// Attributes that only make sense on enums, or only on structs with named fields.
///
/// ```ignore
/// #[codec(tag = "kind")]            // on a struct
/// #[codec(content = "data")]        // without `tag`
/// #[codec(default)] enum E { .. }
/// ```
fn check_container_level(cx: &Ctxt, cont: &Container) {
    let attrs = &cont.attrs;
    let is_enum = matches!(cont.data, Data::Enum(_));
    if !is_enum {
        for (span, key) in [(attrs.tag.span(), "tag"), (attrs.content.span(), "content")] {
            if let Some(span) = span {
                cx.syn_error(syn::Error::new(
                    span,
                    format!(
                        "`{key}` applies to enums: it names the field that carries the variant"
                    ),
                ));
            }
        }
    }
    if let (Some(span), false) = (attrs.content.span(), attrs.tag.is_set()) {
        if is_enum && !attrs.untagged.is_set() {
            cx.syn_error(syn::Error::new(
                span,
                "`content` needs `tag`: write #[codec(tag = \"type\", content = \"...\")]",
            ));
        }
    }
    if let (Some(span), true) = (attrs.content.span(), attrs.array_like.is_set()) {
        cx.syn_error(syn::Error::new(
            span,
            "`content` has no effect with `array_like`: payloads follow the tag in the array",
        ));
    }
    if let (Some(span), true) = (attrs.tag.span(), attrs.array_like.is_set()) {
        cx.syn_error(syn::Error::new(
            span,
            "`tag` names a map key, but `array_like` enums put the tag first in an array; remove one",
        ));
    }
    if let Some(span) = attrs.default.span() {
        match &cont.data {
            Data::Enum(_) => cx.syn_error(syn::Error::new(
                span,
                "`default` on a type applies to structs with named fields; put #[codec(default)] on fields instead",
            )),
            Data::Struct(Style::Named, _) => {}
            Data::Struct(..) => cx.syn_error(syn::Error::new(
                span,
                "`default` on a type applies to structs with named fields",
            )),
        }
    }
    if let (Some(span), Data::Struct(style, _)) = (attrs.array_like.span(), &cont.data) {
        if *style != Style::Named {
            cx.syn_error(syn::Error::new(
                span,
                "`array_like` applies to structs with named fields and to enums; tuple structs are arrays already",
            ));
        }
    }
    if let (Some(span), Data::Struct(style, _)) = (attrs.deny_unknown_fields.span(), &cont.data) {
        if matches!(style, Style::Newtype | Style::Unit) {
            cx.syn_error(syn::Error::new(
                span,
                "`deny_unknown_fields` applies to structs with fields and to enums",
            ));
        }
    }
}

/// serde attributes whose layout is codec's only for some shapes.
///
/// ```ignore
/// #[serde(tag = "t", content = "c")] enum E { A { x: u8 } }  // serde nests `x` under "c"
/// #[serde(transparent)] struct S { inner: u8 }               // codec writes a map
/// ```
fn check_serde_layouts(cx: &Ctxt, cont: &Container) {
    if let (Some(span), Data::Enum(variants)) = (cont.attrs.serde_content, &cont.data) {
        if let Some(v) = variants
            .iter()
            .find(|v| matches!(v.style, Style::Named | Style::Newtype))
        {
            cx.syn_error(syn::Error::new(
                span,
                format!(
                    "codec cannot honour #[serde(content)] here: serde nests the payload of `{}` under it, codec merges struct payloads after the tag; write #[codec(content = \"...\")] to accept codec's layout",
                    v.ident
                ),
            ));
        }
    }
    if let Some(span) = cont.attrs.serde_transparent {
        if !matches!(cont.data, Data::Struct(Style::Newtype, _)) {
            cx.syn_error(syn::Error::new(
                span,
                "codec cannot honour #[serde(transparent)] here: codec writes a newtype `struct S(T)` as its inner value, and this type as a map; make it a tuple struct with one field",
            ));
        }
    }
    if let (Some(span), Data::Struct(..)) = (cont.attrs.rename_all_fields.span(), &cont.data) {
        cx.syn_error(syn::Error::new(
            span,
            "`rename_all_fields` renames the fields of an enum's variants; on a struct write `rename_all`",
        ));
    }
}

/// Fields left out when encoding need a map and a way back in.
///
/// ```ignore
/// #[codec(omit_defaults)] struct T(u8);                            // an array: positions count
/// struct S { #[codec(skip, skip_serializing_if = "f")] a: u8 }     // never written anyway
/// ```
fn check_omitted_fields(cx: &Ctxt, cont: &Container) {
    let map_fields = |style: Style| style == Style::Named && !cont.attrs.array_like.is_set();
    if let Some(span) = cont.attrs.omit_defaults.span() {
        let has_map = match &cont.data {
            Data::Struct(style, _) => map_fields(*style),
            Data::Enum(variants) => {
                cont.enum_repr() != Some(EnumRepr::TaggedArray)
                    && variants.iter().any(|v| v.style == Style::Named)
            }
        };
        if !has_map {
            cx.syn_error(syn::Error::new(
                span,
                "`omit_defaults` leaves fields out of maps; this type has no named fields written as a map",
            ));
        }
    }
    let all_fields: Vec<(Style, &Field)> = match &cont.data {
        Data::Struct(style, fields) => fields.iter().map(|f| (*style, f)).collect(),
        Data::Enum(variants) => variants
            .iter()
            .flat_map(|v| v.fields.iter().map(move |f| (v.style, f)))
            .collect(),
    };
    for (style, field) in all_fields {
        let Some(span) = field.attrs.skip_serializing_if.span() else {
            continue;
        };
        if !map_fields(style) || cont.enum_repr() == Some(EnumRepr::TaggedArray) {
            cx.syn_error(syn::Error::new(
                span,
                "`skip_serializing_if` leaves a field out of a map; elements of an array are matched by position",
            ));
        } else if field.attrs.skip.is_set() {
            cx.syn_error(syn::Error::new(
                span,
                "a skipped field is never encoded: `skip_serializing_if` has no effect",
            ));
        }
    }
}

/// ```ignore
/// enum Never {}
/// ```
fn check_non_empty_enum(cx: &Ctxt, cont: &Container, variants: &[Variant]) {
    if variants.is_empty() {
        cx.error_spanned_by(
            cont.ident,
            "cannot derive Codec for an enum without variants: no value could be encoded",
        );
    }
}

/// ```ignore
/// enum E { #[codec(tag = 1)] A, B }   // one int tag, one string tag
/// ```
fn check_tag_kinds(cx: &Ctxt, variants: &[Variant]) {
    let ints = variants
        .iter()
        .filter(|v| matches!(v.tag, TagValue::Int(_)))
        .count();
    if ints == 0 || ints == variants.len() {
        return;
    }
    for v in variants
        .iter()
        .filter(|v| matches!(v.tag, TagValue::Str(_)))
    {
        cx.error_spanned_by(
            v.ident,
            format!(
                "variant `{}` has a string tag while others have integer tags; give every variant #[codec(tag = <int>)] or none",
                v.ident
            ),
        );
    }
}

/// ```ignore
/// enum E { #[codec(rename = "B")] A, B }
/// ```
fn check_unique_tags(cx: &Ctxt, variants: &[Variant]) {
    let mut seen: HashMap<TagValue, &Variant> = HashMap::new();
    for v in variants {
        for tag in v.accepted_tags() {
            if let Some(first) = seen.get(&tag) {
                if !std::ptr::eq(*first, v) {
                    cx.error_spanned_by(
                        v.ident,
                        format!(
                            "variants `{}` and `{}` both have the tag `{tag}`; rename one",
                            first.ident, v.ident
                        ),
                    );
                }
            } else {
                seen.insert(tag, v);
            }
        }
    }
}

impl std::hash::Hash for TagValue {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.to_string().hash(state)
    }
}

/// ```ignore
/// enum E { #[codec(rename_all = "camelCase")] A(u32) }
/// ```
fn check_variant_attrs(cx: &Ctxt, variant: &Variant) {
    if let (Some(span), false) = (
        variant.attrs.rename_all.span(),
        variant.style == Style::Named,
    ) {
        cx.syn_error(syn::Error::new(
            span,
            "`rename_all` on a variant renames its fields; this variant has no named fields",
        ));
    }
    if let (Some(span), Some(_)) = (variant.attrs.int_tag.span(), variant.attrs.rename.get()) {
        cx.syn_error(syn::Error::new(
            span,
            "a variant has one tag: `tag = <int>` or `rename = \"...\"`, not both",
        ));
    }
}

/// ```ignore
/// struct T(#[codec(rename = "a")] u32);
/// struct S { #[codec(skip, with = "m")] a: u32 }
/// ```
fn check_field_attrs(cx: &Ctxt, style: Style, fields: &[Field], array_like: bool) {
    for field in fields {
        let a = &field.attrs;
        if style != Style::Named || array_like {
            let place = if array_like {
                "an `array_like` type"
            } else {
                "a tuple field"
            };
            if let Some(span) = a.rename.span() {
                cx.syn_error(syn::Error::new(
                    span,
                    format!("`rename` has no effect on {place}: elements are matched by position"),
                ));
            }
            if !a.aliases.is_empty() {
                cx.error_spanned_by(
                    &field.original.ty,
                    format!("`alias` has no effect on {place}: elements are matched by position"),
                );
            }
        }
        if let (Some(span), true) = (a.with.span(), a.skip.is_set()) {
            cx.syn_error(syn::Error::new(
                span,
                "a skipped field is never encoded: `with` has no effect",
            ));
        }
        if let (Some(span), true) = (a.rename.span(), a.skip.is_set()) {
            cx.syn_error(syn::Error::new(
                span,
                "a skipped field is never encoded: `rename` has no effect",
            ));
        }
        if let Some(span) = a.required.span() {
            if style != Style::Named || array_like {
                cx.syn_error(syn::Error::new(
                    span,
                    "`required` applies to fields of a map: elements of an array are always required",
                ));
            }
            for (set, key) in [(a.default.is_set(), "default"), (a.skip.is_set(), "skip")] {
                if set {
                    cx.syn_error(syn::Error::new(
                        span,
                        format!("`required` conflicts with `{key}`: a field with a default may be missing; remove one"),
                    ));
                }
            }
        }
        if style == Style::Newtype {
            for (span, key) in [(a.skip.span(), "skip"), (a.default.span(), "default")] {
                if let Some(span) = span {
                    cx.syn_error(syn::Error::new(
                        span,
                        format!("`{key}` on the only field of a newtype leaves nothing to encode"),
                    ));
                }
            }
        }
    }
}

/// Two fields that would share a key, directly, through `rename_all`, or by an
/// alias; or a field named like the tag of its union.
///
/// ```ignore
/// struct S { a: u32, #[codec(rename = "a")] b: u32 }
/// #[codec(tag = "kind")] enum E { A { kind: String } }
/// ```
fn check_unique_field_names(cx: &Ctxt, fields: &[Field], tag: Option<&str>) {
    let mut seen: HashMap<&str, &Field> = HashMap::new();
    for field in fields.iter().filter(|f| !f.is_skipped()) {
        for name in field.accepted_names() {
            if tag == Some(name) {
                cx.error_spanned_by(
                    field.original.ident.as_ref().map_or(&field.original.ty as &dyn quote::ToTokens, |i| i),
                    format!(
                        "field `{name}` has the same name as the union's tag field; rename the field or choose another tag with #[codec(tag = \"...\")]"
                    ),
                );
            }
            match seen.get(name) {
                Some(first) if !std::ptr::eq(*first, field) => cx.error_spanned_by(
                    field.original.ident.as_ref().map_or(&field.original.ty as &dyn quote::ToTokens, |i| i),
                    format!(
                        "two fields have the wire name `{name}`; give one a distinct #[codec(rename = \"...\")]"
                    ),
                ),
                Some(_) => {}
                None => {
                    seen.insert(name, field);
                }
            }
        }
    }
}

/// Untagged unions: no tag attributes, and no two variants whose kinds the
/// derive can see (unit: nil, struct: map, tuple: array) alike. Newtype
/// payloads are checked by the compiler (see `expand::untagged_checks`).
///
/// ```ignore
/// #[codec(untagged, tag = "type")] enum E { .. }
/// #[codec(untagged)] enum E { A { x: u32 }, B { y: u32 } }
/// ```
fn check_untagged(cx: &Ctxt, cont: &Container, variants: &[Variant]) {
    if !cont.attrs.untagged.is_set() {
        return;
    }
    for (span, key) in [
        (cont.attrs.tag.span(), "tag"),
        (cont.attrs.content.span(), "content"),
        (cont.attrs.array_like.span(), "array_like"),
    ] {
        if let Some(span) = span {
            cx.syn_error(syn::Error::new(
                span,
                format!("`{key}` conflicts with `untagged`: an untagged union writes no tag; remove one"),
            ));
        }
    }
    for v in variants {
        for (span, key) in [
            (v.attrs.rename.span(), "rename"),
            (v.attrs.int_tag.span(), "tag"),
        ] {
            if let Some(span) = span {
                cx.syn_error(syn::Error::new(
                    span,
                    format!("`{key}` has no effect on a variant of an untagged union: no tag is written"),
                ));
            }
        }
        if !v.attrs.aliases.is_empty() {
            cx.error_spanned_by(
                v.ident,
                "`alias` has no effect on a variant of an untagged union: no tag is read",
            );
        }
    }
    for v in variants {
        if v.style == Style::Newtype && crate::ast::refers_to_itself(v.fields[0].ty, cont.ident) {
            cx.error_spanned_by(
                v.fields[0].ty,
                format!(
                    "untagged variant `{}` holds the enum itself, so no wire kind tells it apart; hold a Vec of it, or remove `untagged` (enums are tagged by default)",
                    v.ident
                ),
            );
        }
    }
    for (j, b) in variants.iter().enumerate() {
        for a in &variants[..j] {
            if let (Some(ka), Some(kb)) = (a.static_kind(), b.static_kind()) {
                if ka == kb {
                    for (this, other) in [(a, b), (b, a)] {
                        cx.error_spanned_by(
                            this.ident,
                            format!(
                                "untagged variants `{}` and `{}` are both {ka}: such a value could decode as either; remove `untagged` (enums are tagged by default), or make the payloads distinct",
                                this.ident, other.ident
                            ),
                        );
                    }
                }
            }
        }
    }
}

/// In an array, a missing element can only be a trailing one: a field with a
/// default followed by one without could never be left out.
///
/// ```ignore
/// struct T(#[codec(default)] u32, String);
/// ```
fn check_trailing_defaults(cx: &Ctxt, fields: &[Field]) {
    let live: Vec<&Field> = fields.iter().filter(|f| !f.is_skipped()).collect();
    let Some(last_required) = live.iter().rposition(|f| !f.attrs.default.is_set()) else {
        return;
    };
    for field in &live[..last_required] {
        if let Some(span) = field.attrs.default.span() {
            cx.syn_error(syn::Error::new(
                span,
                "elements of an array are matched by position: only trailing fields can have a `default`; move this field after the fields without one",
            ));
        }
    }
}

/// Attributes about fields on an enum whose variants have none.
///
/// ```ignore
/// #[codec(deny_unknown_fields)] enum Color { Red, Green }
/// ```
fn check_unit_enum_attrs(cx: &Ctxt, cont: &Container) {
    if cont.enum_repr() != Some(EnumRepr::Unit) {
        return;
    }
    if let Some(span) = cont.attrs.deny_unknown_fields.span() {
        cx.syn_error(syn::Error::new(
            span,
            "`deny_unknown_fields` has no effect on an enum of unit variants: it is written as a bare name",
        ));
    }
}

/// `#[codec(serde)]` implements serde's traits through codec's runtime,
/// which has them only with the `serde` feature.
///
/// ```ignore
/// #[codec(serde)] struct S { .. }   // codec = { version = "..", features = [] }
/// ```
fn check_serde_feature(cx: &Ctxt, cont: &Container) {
    if let Some(span) = cont.attrs.serde.span() {
        if !cfg!(feature = "serde") {
            cx.syn_error(syn::Error::new(
                span,
                "#[codec(serde)] implements serde's traits through codec's `serde` feature; enable it: codec = { version = \"..\", features = [\"serde\"] }",
            ));
        }
    }
}

/// Constraints that contradict each other or cannot be checked.
///
/// ```ignore
/// #[codec(min_length = 5, max_length = 2)] name: String,
/// #[codec(ge = 10, lt = 10)] n: u32,
/// #[codec(skip, ge = 0)] n: u32,
/// ```
fn check_constraints(cx: &Ctxt, cont: &Container) {
    let fields: Vec<&Field> = match &cont.data {
        Data::Struct(_, fields) => fields.iter().collect(),
        Data::Enum(variants) => variants.iter().flat_map(|v| &v.fields).collect(),
    };
    for field in fields {
        let c = &field.attrs.constraints;
        if let (Some((_, min)), Some((span, max))) = (c.min_length, c.max_length) {
            if min > max {
                cx.syn_error(syn::Error::new(
                    span,
                    format!("`max_length = {max}` is below `min_length = {min}`: no value fits; swap or fix them"),
                ));
            }
        }
        for (lower, lower_key, lower_strict) in [(c.ge, "ge", false), (c.gt, "gt", true)] {
            for (upper, upper_key, upper_strict) in [(c.le, "le", false), (c.lt, "lt", true)] {
                if let (Some((_, lo)), Some((span, hi))) = (lower, upper) {
                    let empty = if lower_strict || upper_strict {
                        lo.as_f64() >= hi.as_f64()
                    } else {
                        lo.as_f64() > hi.as_f64()
                    };
                    if empty {
                        cx.syn_error(syn::Error::new(
                            span,
                            format!("`{lower_key} = {lo}` and `{upper_key} = {hi}` leave no value; fix the bounds"),
                        ));
                    }
                }
            }
        }
        if let Some(skip) = field.attrs.skip.span() {
            if !c.is_empty() {
                cx.syn_error(syn::Error::new(
                    skip,
                    "a `skip` field is never decoded, so its constraints would never be checked; remove them or `skip`",
                ));
            }
        }
    }
}

/// The built-in handlers a derived type can name; the store spells the
/// same names in its `layout` (its tests put a value through each).
const BUILT_IN_HANDLERS: &[&str] = &["inline", "shared", "file", "auto"];

/// The built-in handlers of values no derive makes.
const FOREIGN_HANDLERS: &[(&str, &str)] = &[
    ("array", "ndarray arrays"),
    ("arrow", "Arrow record batches"),
    ("arrow-batches", "Arrow record batches"),
];

/// A handler name that no store knows, or whose values are not derived.
///
/// ```ignore
/// #[codec(handler = "fiel")]    // no such built-in handler
/// #[codec(handler = "array")]   // stores ndarray arrays, not this type
/// ```
fn check_handler(cx: &Ctxt, cont: &Container) {
    let Some(crate::attr::Handler::Name(lit)) = cont.attrs.handler.get() else {
        return;
    };
    let name = lit.value();
    if BUILT_IN_HANDLERS.contains(&name.as_str()) {
        return;
    }
    let message = match FOREIGN_HANDLERS.iter().find(|(n, _)| *n == name) {
        Some((_, values)) => format!(
            "the `{name}` handler stores {values}, not a derived type; \
             name one of {} or a handler type: #[codec(handler = path::to::MyHandler)]",
            quoted(BUILT_IN_HANDLERS)
        ),
        None => format!(
            "no built-in handler is named `{name}`; the built-in ones are {}; \
             for a handler of your own, name its type: #[codec(handler = path::to::MyHandler)]",
            quoted(BUILT_IN_HANDLERS)
        ),
    };
    cx.syn_error(syn::Error::new(lit.span(), message));
}

/// A type that borrows from its input cannot be stored or bridged to
/// serde; `borrow` needs a lifetime to borrow.
///
/// ```ignore
/// #[derive(Codec)]
/// #[codec(handler = "inline")]
/// struct Line<'a> { text: &'a str }
///
/// #[derive(Codec)]
/// struct Owned { #[codec(borrow)] text: String }
/// ```
fn check_borrowing(cx: &Ctxt, cont: &Container) {
    let fields: Vec<&crate::ast::Field> = match &cont.data {
        Data::Struct(_, fields) => fields.iter().collect(),
        Data::Enum(variants) => variants.iter().flat_map(|v| &v.fields).collect(),
    };
    for field in &fields {
        if let Some(span) = field.attrs.borrow.span() {
            if !cont.names_a_lifetime(field.ty) {
                let message = "`borrow` on a field whose type names none of the type's lifetimes: \
                               give the type a lifetime (`struct Line<'a>`) and the field one \
                               (`Cow<'a, str>`), or remove `borrow`";
                cx.syn_error(syn::Error::new(span, message));
            }
        }
    }
    if !cont.borrows() {
        return;
    }
    let lt = &cont
        .generics
        .lifetimes()
        .next()
        .expect("a type that borrows has a lifetime")
        .lifetime;
    if let Some(span) = cont.attrs.handler.span() {
        let message = format!(
            "a type that borrows from its input (`{lt}`) cannot be stored; \
             remove `handler`, and store an owned twin (`String` for `&{lt} str`)"
        );
        cx.syn_error(syn::Error::new(span, message));
    }
    if let Some(span) = cont.attrs.serde.span() {
        let message = format!(
            "`serde` is not supported on a type that borrows from its input (`{lt}`); \
             derive serde's traits on it, with #[serde(borrow)] on the fields that borrow"
        );
        cx.syn_error(syn::Error::new(span, message));
    }
}

fn quoted(names: &[&str]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    names.join(", ")
}
