//! Schemas describe exactly the JSON encoding: every value `to_json` writes
//! validates against its type's schema (checked by the independent `jsonschema`
//! validator), every schema is valid draft 2020-12, fingerprints are pinned
//! (`generation`); the diff of two schemas names each change and whether it
//! breaks reading stored values (`diff`); and the committed schemas under
//! `schemas/` have not drifted (`drift`).

mod corpus;
mod diff;
#[cfg(feature = "drift")]
mod drift;
mod evolution_props;
mod generation;
