//! The parsed model of a deriving type: container, variants and fields, with
//! their wire names resolved. Generators read only this model.

use crate::attr;
use crate::ctxt::Ctxt;

pub struct Container<'a> {
    pub ident: &'a syn::Ident,
    pub generics: &'a syn::Generics,
    pub attrs: attr::Container,
    pub data: Data<'a>,
    /// The path generated code uses for the runtime (`::codec` unless `crate = ".."`).
    pub krate: syn::Path,
    #[allow(dead_code)] // the whole input, for checks that need its tokens
    pub original: &'a syn::DeriveInput,
}

pub enum Data<'a> {
    Struct(Style, Vec<Field<'a>>),
    Enum(Vec<Variant<'a>>),
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Style {
    /// `{ a: A, b: B }`
    Named,
    /// `(A, B)`
    Tuple,
    /// `(A)`
    Newtype,
    /// no fields
    Unit,
}

pub struct Variant<'a> {
    pub ident: &'a syn::Ident,
    pub attrs: attr::Variant,
    pub style: Style,
    pub fields: Vec<Field<'a>>,
    /// The value of the tag naming this variant on the wire.
    pub tag: TagValue,
    #[allow(dead_code)] // the whole variant, for checks that need its tokens
    pub original: &'a syn::Variant,
}

pub struct Field<'a> {
    pub member: syn::Member,
    pub ty: &'a syn::Type,
    pub attrs: attr::Field,
    /// The key of this field in a map encoding.
    pub wire_name: String,
    pub original: &'a syn::Field,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum TagValue {
    Str(String),
    Int(i64),
}

impl std::fmt::Display for TagValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TagValue::Str(s) => f.write_str(s),
            TagValue::Int(i) => write!(f, "{i}"),
        }
    }
}

/// How an enum appears on the wire.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EnumRepr {
    /// Every variant is a unit: the tag value alone (`"Red"`, or an int).
    Unit,
    /// A map whose first entry is the tag: `{"type": "Click", "x": 3}`.
    TaggedMap,
    /// `array_like`: an array whose first element is the tag: `["Click", 3]`.
    TaggedArray,
    /// `untagged`: each variant's payload alone, told apart by its wire kind.
    Untagged,
}

impl<'a> Container<'a> {
    /// [`private`] for this container's crate path.
    pub fn private(&self) -> proc_macro2::TokenStream {
        private(&self.krate)
    }

    /// Whether values of the type go to a store handler of its own
    /// (`#[codec(handler = ..)]`) wherever the store meets them: its
    /// encoder and decoder first ask the store (`__store::handled`).
    pub fn store_handled(&self) -> bool {
        self.attrs.handler.get().is_some() && !self.borrows()
    }

    /// The first statement of `encode_msgpack`: a value of a handled type
    /// met while the store encodes is given to the store.
    pub fn divert(&self) -> proc_macro2::TokenStream {
        let krate = &self.krate;
        let p = self.private();
        match self.store_handled() {
            true => quote::quote! {
                if #krate::__store::handled::divert(self, __w)? {
                    return #p::Ok(());
                }
            },
            false => proc_macro2::TokenStream::new(),
        }
    }

    /// The first statement of `decode_msgpack`: a placeholder the store
    /// wrote stands for a value it reads back.
    pub fn undivert(&self) -> proc_macro2::TokenStream {
        let krate = &self.krate;
        let p = self.private();
        match self.store_handled() {
            true => quote::quote! {
                if let #p::Some(__value) = #krate::__store::handled::undivert::<Self>(__r)? {
                    return #p::Ok(__value);
                }
            },
            false => proc_macro2::TokenStream::new(),
        }
    }

    /// Whether the type borrows from its input: a field does (see
    /// [`Container::field_borrows`]). It then implements `Decode<'__de>`
    /// for the inputs that outlive its lifetimes only, not for every input:
    /// it is not `Codec`. A type whose lifetimes only `Cow`s name, without
    /// `#[codec(borrow)]`, stays owned, as with serde.
    pub fn borrows(&self) -> bool {
        self.all_fields().any(|f| self.field_borrows(f))
    }

    fn all_fields(&self) -> Box<dyn Iterator<Item = &Field<'a>> + '_> {
        match &self.data {
            Data::Struct(_, fields) => Box::new(fields.iter()),
            Data::Enum(variants) => Box::new(variants.iter().flat_map(|v| v.fields.iter())),
        }
    }

    /// Whether a field borrows from the input: its type holds a reference
    /// with one of the container's lifetimes (`&'a str`, `Option<&'a [u8]>`),
    /// or it says `#[codec(borrow)]` (a `Cow<'a, str>`, a derived `T<'a>`).
    pub fn field_borrows(&self, field: &Field) -> bool {
        let explicit = field.attrs.borrow.is_set() && self.names_a_lifetime(field.ty);
        !field.is_skipped()
            && !field.attrs.with.is_set()
            && (explicit || self.references_a_lifetime(field.ty))
    }

    /// The kinds of a field's type, spanned at it, so that a type without
    /// `Schema` is the one error its schema gives.
    pub fn field_kind(&self, field: &Field) -> proc_macro2::TokenStream {
        use syn::spanned::Spanned;
        let p = self.private();
        let ty = field.ty;
        quote::quote_spanned!(ty.span()=> <#ty as #p::Schema>::KIND)
    }

    /// The trait generated decoders call on `Self` and on a field's type:
    /// `Decode` with the input's lifetime.
    pub fn decode_trait(&self) -> proc_macro2::TokenStream {
        let p = self.private();
        quote::quote!(#p::Decode<'__de>)
    }

    /// Whether `ty` holds a reference with one of the container's lifetimes.
    fn references_a_lifetime(&self, ty: &syn::Type) -> bool {
        struct Finder<'g> {
            generics: &'g syn::Generics,
            found: bool,
        }
        impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
            fn visit_type_reference(&mut self, r: &'ast syn::TypeReference) {
                if let Some(lt) = &r.lifetime {
                    self.found |= self.generics.lifetimes().any(|p| p.lifetime == *lt);
                }
                syn::visit::visit_type_reference(self, r);
            }
        }
        let mut finder = Finder {
            generics: self.generics,
            found: false,
        };
        syn::visit::Visit::visit_type(&mut finder, ty);
        finder.found
    }

    /// Whether `ty` names one of the container's lifetimes.
    pub fn names_a_lifetime(&self, ty: &syn::Type) -> bool {
        struct Finder<'g> {
            generics: &'g syn::Generics,
            found: bool,
        }
        impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
            fn visit_lifetime(&mut self, lt: &'ast syn::Lifetime) {
                self.found |= self.generics.lifetimes().any(|p| p.lifetime == *lt);
            }
        }
        let mut finder = Finder {
            generics: self.generics,
            found: false,
        };
        syn::visit::Visit::visit_type(&mut finder, ty);
        finder.found
    }

    pub fn from_ast(cx: &Ctxt, input: &'a syn::DeriveInput) -> Option<Container<'a>> {
        let attrs = attr::Container::from_ast(cx, &input.attrs);
        let data = match &input.data {
            syn::Data::Struct(data) => {
                let (style, fields) = fields_from_ast(cx, &data.fields, attrs.rename_all.get());
                Data::Struct(style, fields)
            }
            syn::Data::Enum(data) => Data::Enum(
                data.variants
                    .iter()
                    .map(|v| Variant::from_ast(cx, v, &attrs))
                    .collect(),
            ),
            syn::Data::Union(u) => {
                cx.error_spanned_by(
                    u.union_token,
                    "#[derive(Codec)] does not support unions; use an enum",
                );
                return None;
            }
        };
        let krate = attrs
            .crate_path
            .get()
            .cloned()
            .unwrap_or_else(|| syn::parse_quote!(::codec));
        Some(Container {
            ident: &input.ident,
            generics: &input.generics,
            attrs,
            data,
            krate,
            original: input,
        })
    }

    /// The name of the tag field of a tagged enum.
    pub fn tag_field(&self) -> &str {
        self.attrs.tag.get().map_or("type", String::as_str)
    }

    /// The key under which a tagged variant puts a payload that does not merge.
    pub fn content_field(&self) -> &str {
        self.attrs.content.get().map_or("value", String::as_str)
    }

    pub fn enum_repr(&self) -> Option<EnumRepr> {
        let Data::Enum(variants) = &self.data else {
            return None;
        };
        Some(if self.attrs.untagged.is_set() {
            EnumRepr::Untagged
        } else if self.attrs.array_like.is_set() {
            EnumRepr::TaggedArray
        } else if self.attrs.tag.is_set() || variants.iter().any(|v| v.style != Style::Unit) {
            EnumRepr::TaggedMap
        } else {
            EnumRepr::Unit
        })
    }

    pub fn deny_unknown_fields(&self) -> bool {
        self.attrs.deny_unknown_fields.is_set()
    }
}

impl<'a> Variant<'a> {
    fn from_ast(cx: &Ctxt, variant: &'a syn::Variant, container: &attr::Container) -> Self {
        let attrs = attr::Variant::from_ast(cx, &variant.attrs);
        let tag = match (attrs.int_tag.get(), attrs.rename.get()) {
            (Some(i), _) => TagValue::Int(*i),
            (None, Some(name)) => TagValue::Str(name.clone()),
            (None, None) => TagValue::Str(match container.rename_all.get() {
                Some(rule) => rule.apply_to_variant(&variant.ident.unraw().to_string()),
                None => variant.ident.unraw().to_string(),
            }),
        };
        let rename_fields = attrs.rename_all.get().or(container.rename_all_fields.get());
        let (style, fields) = fields_from_ast(cx, &variant.fields, rename_fields);
        Variant {
            ident: &variant.ident,
            attrs,
            style,
            fields,
            tag,
            original: variant,
        }
    }

    /// Every tag value that decodes to this variant: its own, then its aliases.
    pub fn accepted_tags(&self) -> Vec<TagValue> {
        let mut tags = vec![self.tag.clone()];
        tags.extend(self.attrs.aliases.iter().cloned().map(TagValue::Str));
        tags
    }
}

/// `<krate>::__private`, where generated code finds the runtime's items:
/// `krate` is how the user's crate names codec (`::codec`, or
/// `#[codec(crate = "...")]`).
pub fn private(krate: &syn::Path) -> proc_macro2::TokenStream {
    quote::quote!(#krate::__private)
}

impl Variant<'_> {
    /// The wire kinds of an untagged variant, as an expression of type `WireKind`.
    pub fn kind_expr(&self, cont: &Container) -> proc_macro2::TokenStream {
        let p = cont.private();
        match self.style {
            Style::Unit => quote::quote!(#p::WireKind::NIL),
            Style::Named => quote::quote!(#p::WireKind::MAP),
            Style::Tuple => quote::quote!(#p::WireKind::ARRAY),
            Style::Newtype if self.fields[0].attrs.with.is_set() => {
                quote::quote!(#p::WireKind::ANY)
            }
            Style::Newtype => {
                let ty = self.fields[0].ty;
                quote::quote!(<#ty as #p::Schema>::KIND)
            }
        }
    }

    /// The kind of an untagged variant when the derive can tell it without the
    /// compiler: every style but a newtype.
    pub fn static_kind(&self) -> Option<&'static str> {
        match self.style {
            Style::Unit => Some("nil"),
            Style::Named => Some("map-like"),
            Style::Tuple => Some("array-like"),
            Style::Newtype => None,
        }
    }
}

impl Field<'_> {
    pub fn is_skipped(&self) -> bool {
        self.attrs.skip.is_set()
    }

    /// Every key that decodes into this field: its wire name, then its aliases.
    pub fn accepted_names(&self) -> Vec<&str> {
        let mut names = vec![self.wire_name.as_str()];
        names.extend(self.attrs.aliases.iter().map(String::as_str));
        names
    }
}

fn fields_from_ast<'a>(
    cx: &Ctxt,
    fields: &'a syn::Fields,
    rename_all: Option<&crate::case::RenameRule>,
) -> (Style, Vec<Field<'a>>) {
    let style = match fields {
        syn::Fields::Named(_) => Style::Named,
        syn::Fields::Unnamed(f) if f.unnamed.len() == 1 => Style::Newtype,
        syn::Fields::Unnamed(_) => Style::Tuple,
        syn::Fields::Unit => Style::Unit,
    };
    let fields = fields
        .iter()
        .enumerate()
        .map(|(i, field)| {
            let attrs = attr::Field::from_ast(cx, &field.attrs);
            let member = match &field.ident {
                Some(ident) => syn::Member::Named(ident.clone()),
                None => syn::Member::Unnamed(i.into()),
            };
            let ident_name = field
                .ident
                .as_ref()
                .map(|i| i.unraw().to_string())
                .unwrap_or_else(|| i.to_string());
            let wire_name = match (attrs.rename.get(), rename_all) {
                (Some(name), _) => name.clone(),
                (None, Some(rule)) => rule.apply_to_field(&ident_name),
                (None, None) => ident_name,
            };
            Field {
                member,
                ty: &field.ty,
                attrs,
                wire_name,
                original: field,
            }
        })
        .collect();
    (style, fields)
}

use syn::ext::IdentExt as _;

/// Whether `ty` is `name` (or `Self`) itself, possibly behind `Box`, `Rc`,
/// `Arc` or `Option`: a type whose wire kind would be defined by itself.
pub fn refers_to_itself(ty: &syn::Type, name: &syn::Ident) -> bool {
    let syn::Type::Path(path) = ty else {
        return false;
    };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    if last.ident == *name || last.ident == "Self" {
        return true;
    }
    if ["Box", "Rc", "Arc", "Option"]
        .iter()
        .any(|w| last.ident == w)
    {
        if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
            return args.args.iter().any(|a| match a {
                syn::GenericArgument::Type(inner) => refers_to_itself(inner, name),
                _ => false,
            });
        }
    }
    false
}

/// Whether `ty` is a `Cow` (`Cow<'a, str>`, `std::borrow::Cow<'a, [u8]>`),
/// which a field that borrows reads borrowed.
pub fn is_cow(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            p.path.segments.last().is_some_and(|s| s.ident == "Cow")
        }
        _ => false,
    }
}
