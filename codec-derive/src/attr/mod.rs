//! Reads `#[codec(..)]` attributes, then the `#[serde(..)]` ones codec
//! honours (`serde`), into plain values. The only module that looks at
//! `syn::Attribute`s. A field's constraint keys are read by `constraints`;
//! the values of all keys, from their literals, by `lit`. Neither reads the
//! parsed model (`crate::ast`), which is built from this one.

pub(crate) mod constraints;
mod lit;
mod serde;

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use self::lit::{
    flag, parse_bound, parse_fn_path, parse_int, parse_lit_path, parse_lit_str, parse_string,
    parse_version, path_key,
};
use crate::case::{RenameRule, RULES};
use crate::ctxt::Ctxt;

const CONTAINER_KEYS: &[&str] = &[
    "name",
    "rename_all",
    "default",
    "deny_unknown_fields",
    "tag",
    "content",
    "array_like",
    "untagged",
    "version",
    "alias",
    "crate",
    "rename_all_fields",
    "bound",
    "omit_defaults",
    "serde",
    "handler",
];
const VARIANT_KEYS: &[&str] = &["rename", "tag", "alias", "rename_all"];
const FIELD_KEYS: &[&str] = &[
    "rename",
    "alias",
    "default",
    "skip",
    "with",
    "required",
    "skip_serializing_if",
    "borrow",
];

/// A value set at most once, remembering where it was set.
pub struct Attr<T> {
    name: &'static str,
    value: Option<(Span, T)>,
}

impl<T> Attr<T> {
    fn none(name: &'static str) -> Self {
        Attr { name, value: None }
    }

    fn set(&mut self, cx: &Ctxt, span: Span, value: T) {
        if self.value.is_some() {
            cx.syn_error(syn::Error::new(
                span,
                format!("duplicate codec attribute `{}`; keep one", self.name),
            ));
        } else {
            self.value = Some((span, value));
        }
    }

    pub fn get(&self) -> Option<&T> {
        self.value.as_ref().map(|(_, v)| v)
    }

    pub fn span(&self) -> Option<Span> {
        self.value.as_ref().map(|(s, _)| *s)
    }

    pub fn is_set(&self) -> bool {
        self.value.is_some()
    }
}

/// The default handler a type names.
pub enum Handler {
    /// `#[codec(handler = "file")]`: a built-in handler, by name.
    Name(syn::LitStr),
    /// `#[codec(handler = path::to::Handler)]`: a handler type, built
    /// with `Default` by each store that meets the type; `Self` for a
    /// type that stores itself.
    Type(Box<syn::Type>),
}

/// `handler = "name"` or `handler = path::to::Type`.
fn parse_handler(meta: &ParseNestedMeta) -> syn::Result<Handler> {
    const FORMS: &str =
        "#[codec(handler = \"file\")] (a built-in handler) or #[codec(handler = path::to::MyHandler)]";
    if !meta.input.peek(syn::Token![=]) {
        return Err(meta.error(format!("`handler` needs a value: {FORMS}")));
    }
    let value = meta.value()?;
    if value.peek(syn::LitStr) {
        return Ok(Handler::Name(value.parse()?));
    }
    if value.peek(syn::Lit) {
        let lit: syn::Lit = value.parse()?;
        return Err(syn::Error::new_spanned(
            lit,
            format!("expected a handler's name or type: {FORMS}"),
        ));
    }
    Ok(Handler::Type(Box::new(value.parse()?)))
}

/// How a missing field gets its value.
#[derive(Clone)]
pub enum Default {
    /// `#[codec(default)]`: `Default::default()`.
    Default,
    /// `#[codec(default = "path")]`: calls `path()`.
    Path(syn::ExprPath),
}

pub struct Container {
    pub name: Attr<String>,
    pub rename_all: Attr<RenameRule>,
    pub default: Attr<Default>,
    pub deny_unknown_fields: Attr<()>,
    pub tag: Attr<String>,
    pub content: Attr<String>,
    pub array_like: Attr<()>,
    pub untagged: Attr<()>,
    pub version: Attr<u32>,
    pub aliases: Vec<String>,
    pub crate_path: Attr<syn::Path>,
    /// The fields of every struct variant renamed by this rule.
    pub rename_all_fields: Attr<RenameRule>,
    /// Where predicates that replace the inferred `Codec` bounds.
    pub bound: Attr<Vec<syn::WherePredicate>>,
    /// Fields equal to their default are left out when encoding (msgspec's
    /// `omit_defaults`).
    pub omit_defaults: Attr<()>,
    /// `#[codec(serde)]`: the derive implements serde's `Serialize` and
    /// `Deserialize` too, in codec's wire shape (feature `serde`).
    pub serde: Attr<()>,
    /// `#[codec(handler = ..)]`: the type's default handler in every cache
    /// store.
    pub handler: Attr<Handler>,
    /// Where `content` came from `#[serde(content)]`: serde puts struct
    /// variants under it too, so it is honoured only without them.
    pub serde_content: Option<Span>,
    /// `#[serde(transparent)]`, honoured on newtypes (which codec writes as
    /// their inner value already).
    pub serde_transparent: Option<Span>,
    /// The doc comment, the schema's `description`.
    pub doc: Option<String>,
}

pub struct Variant {
    pub rename: Attr<String>,
    pub int_tag: Attr<i64>,
    pub aliases: Vec<String>,
    pub rename_all: Attr<RenameRule>,
    /// The doc comment, the variant schema's `description`.
    pub doc: Option<String>,
}

pub struct Field {
    pub rename: Attr<String>,
    pub aliases: Vec<String>,
    pub default: Attr<Default>,
    pub skip: Attr<()>,
    pub with: Attr<syn::Path>,
    /// `#[codec(required)]`: missing is an error even for an `Option`.
    pub required: Attr<()>,
    /// A function of `&T` returning true when the field is left out.
    pub skip_serializing_if: Attr<syn::ExprPath>,
    /// `#[codec(borrow)]`: the field (a `Cow`, a derived type with a
    /// lifetime) borrows from the input; `&'a str` and `&'a [u8]` always do.
    pub borrow: Attr<()>,
    pub constraints: constraints::Constraints,
    /// The doc comment, the field schema's `description`.
    pub doc: Option<String>,
}

impl Container {
    pub fn from_ast(cx: &Ctxt, attrs: &[syn::Attribute]) -> Self {
        let mut c = Container {
            name: Attr::none("name"),
            rename_all: Attr::none("rename_all"),
            default: Attr::none("default"),
            deny_unknown_fields: Attr::none("deny_unknown_fields"),
            tag: Attr::none("tag"),
            content: Attr::none("content"),
            array_like: Attr::none("array_like"),
            untagged: Attr::none("untagged"),
            version: Attr::none("version"),
            aliases: Vec::new(),
            crate_path: Attr::none("crate"),
            rename_all_fields: Attr::none("rename_all_fields"),
            bound: Attr::none("bound"),
            omit_defaults: Attr::none("omit_defaults"),
            serde: Attr::none("serde"),
            handler: Attr::none("handler"),
            serde_content: None,
            serde_transparent: None,
            doc: doc(attrs),
        };
        for_each_meta(cx, attrs, "codec", |meta| {
            let span = meta.path.span();
            let key = path_key(&meta.path);
            match key.as_str() {
                "name" => c.name.set(cx, span, parse_string(&meta)?),
                "rename_all" => c.rename_all.set(cx, span, parse_rule(&meta)?),
                "default" => c.default.set(cx, span, parse_default(&meta)?),
                "deny_unknown_fields" => c.deny_unknown_fields.set(cx, span, flag(&meta)?),
                "tag" => c.tag.set(cx, span, parse_string(&meta)?),
                "content" => c.content.set(cx, span, parse_string(&meta)?),
                "array_like" => c.array_like.set(cx, span, flag(&meta)?),
                "untagged" => c.untagged.set(cx, span, flag(&meta)?),
                "version" => c.version.set(cx, span, parse_version(&meta)?),
                "alias" => c.aliases.push(parse_string(&meta)?),
                "crate" => c.crate_path.set(cx, span, parse_lit_path(&meta)?),
                "rename_all_fields" => c.rename_all_fields.set(cx, span, parse_rule(&meta)?),
                "bound" => c.bound.set(cx, span, parse_bound(&meta)?),
                "omit_defaults" => c.omit_defaults.set(cx, span, flag(&meta)?),
                "serde" => c.serde.set(cx, span, flag(&meta)?),
                "handler" => c.handler.set(cx, span, parse_handler(&meta)?),
                "rename" => {
                    parse_string(&meta)?;
                    return Err(syn::Error::new(
                        span,
                        "`rename` on a type is spelled `name`: #[codec(name = \"...\")] sets the type's stable wire name",
                    ));
                }
                _ => return Err(unknown_key(&meta, &key, "a type", CONTAINER_KEYS)),
            }
            Ok(())
        });
        c.read_serde(cx, attrs);
        c
    }
}

impl Variant {
    pub fn from_ast(cx: &Ctxt, attrs: &[syn::Attribute]) -> Self {
        let mut v = Variant {
            rename: Attr::none("rename"),
            int_tag: Attr::none("tag"),
            aliases: Vec::new(),
            rename_all: Attr::none("rename_all"),
            doc: doc(attrs),
        };
        for_each_meta(cx, attrs, "codec", |meta| {
            let span = meta.path.span();
            let key = path_key(&meta.path);
            match key.as_str() {
                "rename" => v.rename.set(cx, span, parse_string(&meta)?),
                "tag" => v.int_tag.set(cx, span, parse_int(&meta)?),
                "alias" => v.aliases.push(parse_string(&meta)?),
                "rename_all" => v.rename_all.set(cx, span, parse_rule(&meta)?),
                _ => return Err(unknown_key(&meta, &key, "a variant", VARIANT_KEYS)),
            }
            Ok(())
        });
        v.read_serde(cx, attrs);
        v
    }
}

impl Field {
    pub fn from_ast(cx: &Ctxt, attrs: &[syn::Attribute]) -> Self {
        let mut f = Field {
            rename: Attr::none("rename"),
            aliases: Vec::new(),
            default: Attr::none("default"),
            skip: Attr::none("skip"),
            with: Attr::none("with"),
            required: Attr::none("required"),
            skip_serializing_if: Attr::none("skip_serializing_if"),
            borrow: Attr::none("borrow"),
            constraints: constraints::Constraints::default(),
            doc: doc(attrs),
        };
        for_each_meta(cx, attrs, "codec", |meta| {
            let span = meta.path.span();
            let key = path_key(&meta.path);
            match key.as_str() {
                "rename" => f.rename.set(cx, span, parse_string(&meta)?),
                "alias" => f.aliases.push(parse_string(&meta)?),
                "default" => f.default.set(cx, span, parse_default(&meta)?),
                "skip" => f.skip.set(cx, span, flag(&meta)?),
                "with" => f.with.set(cx, span, parse_lit_path(&meta)?),
                "required" => f.required.set(cx, span, flag(&meta)?),
                "borrow" => f.borrow.set(cx, span, flag(&meta)?),
                "skip_serializing_if" => {
                    f.skip_serializing_if.set(cx, span, parse_fn_path(&meta)?);
                }
                k if constraints::KEYS.contains(&k) => f.constraints.parse(cx, &meta, k)?,
                _ => {
                    let keys = constraints::with_field_keys(FIELD_KEYS);
                    return Err(unknown_key(&meta, &key, "a field", &keys));
                }
            }
            Ok(())
        });
        f.read_serde(cx, attrs);
        f
    }
}

/// The doc comment of an item (its `///` lines and `#[doc = "..."]`
/// attributes), as rustdoc reads it: the lines joined, without the
/// indentation they share, blank lines at either end dropped.
fn doc(attrs: &[syn::Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                let value = s.value();
                match value.is_empty() {
                    // A blank `///` line: `"".lines()` has none.
                    true => lines.push(String::new()),
                    false => lines.extend(value.lines().map(str::to_owned)),
                }
            }
        }
    }
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()?;
    let lines: Vec<&str> = lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or("").trim_end())
        .collect();
    let text = lines.join("\n");
    let text = text.trim_matches('\n');
    (!text.is_empty()).then(|| text.to_owned())
}

/// Calls `f` on each key of the `#[name(..)]` attributes.
fn for_each_meta(
    cx: &Ctxt,
    attrs: &[syn::Attribute],
    name: &str,
    mut f: impl FnMut(ParseNestedMeta) -> syn::Result<()>,
) {
    for attr in attrs {
        if !attr.path().is_ident(name) {
            continue;
        }
        if let syn::Meta::Path(path) = &attr.meta {
            cx.error_spanned_by(
                path,
                format!("expected #[{name}(...)] with at least one key"),
            );
            continue;
        }
        if let Err(err) = attr.parse_nested_meta(|meta| {
            let result = f(meta);
            // Keep parsing the following keys after an error in this one.
            if let Err(err) = result {
                cx.syn_error(err);
            }
            Ok(())
        }) {
            cx.syn_error(err);
        }
    }
}

fn unknown_key(meta: &ParseNestedMeta, key: &str, level: &str, keys: &[&str]) -> syn::Error {
    // Consume a value, if any, so parsing resumes at the next key.
    if meta.input.peek(syn::Token![=]) {
        let _ = meta.value().and_then(|v| v.parse::<syn::Expr>());
    } else if meta.input.peek(syn::token::Paren) {
        let _ = meta.parse_nested_meta(|_| Ok(()));
    }
    let field_keys = constraints::with_field_keys(FIELD_KEYS);
    let elsewhere = [
        ("a type", CONTAINER_KEYS),
        ("a variant", VARIANT_KEYS),
        ("a field", &field_keys[..]),
    ]
    .into_iter()
    .filter(|(other, ks)| *other != level && ks.contains(&key))
    .map(|(other, _)| other)
    .collect::<Vec<_>>();
    let msg = if !elsewhere.is_empty() {
        format!(
            "`{key}` is not allowed on {level}; it applies to {}",
            elsewhere.join(" or ")
        )
    } else if let Some(near) = closest(key, keys) {
        format!("unknown codec attribute `{key}` on {level}; did you mean `{near}`?")
    } else {
        format!(
            "unknown codec attribute `{key}` on {level}; expected one of: {}",
            keys.join(", ")
        )
    };
    syn::Error::new_spanned(&meta.path, msg)
}

/// The known key nearest to `key` in edit distance, if near enough to be a typo.
pub(crate) fn closest<'a>(key: &str, keys: &[&'a str]) -> Option<&'a str> {
    keys.iter()
        .map(|k| (edit_distance(key, k), *k))
        .filter(|(d, k)| *d <= (k.len() / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != *cb) as usize)
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn parse_rule(meta: &ParseNestedMeta) -> syn::Result<RenameRule> {
    let lit = parse_lit_str(meta)?;
    RenameRule::from_str(&lit.value()).ok_or_else(|| {
        let names: Vec<_> = RULES.iter().map(|(n, _)| format!("\"{n}\"")).collect();
        syn::Error::new(
            lit.span(),
            format!(
                "unknown case style {:?}; expected one of {}",
                lit.value(),
                names.join(", ")
            ),
        )
    })
}

fn parse_default(meta: &ParseNestedMeta) -> syn::Result<Default> {
    if !meta.input.peek(syn::Token![=]) {
        return Ok(Default::Default);
    }
    let lit = parse_lit_str(meta)?;
    lit.parse::<syn::ExprPath>()
        .map(Default::Path)
        .map_err(|_| {
            syn::Error::new(
                lit.span(),
                "expected the path of a function, like \"default_port\"",
            )
        })
}
