use codec::store::{DumpContext, Info, LoadContext, TypedHandler};
use codec::{Codec, StoreError};

#[derive(Codec)]
#[codec(handler = Pages)]
struct Page {
    text: String,
}

struct Pages(u32);

impl TypedHandler<Page> for Pages {
    fn name(&self) -> &str {
        "pages"
    }

    fn dump(&self, page: &Page, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        Ok(Info::from([("text".to_owned(), ctx.dump_value(&page.text)?)]))
    }

    fn load(&self, _info: &Info, ctx: &LoadContext<'_>) -> Result<Page, StoreError> {
        Err(ctx.corrupt("unused"))
    }
}

fn main() {}
