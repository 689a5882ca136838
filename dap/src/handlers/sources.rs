//! `loadedSources`, `source`: shaders by file, or by `sourceReference` when
//! they have none (their text comes from the program).

use std::io::Write;

use crate::error::Error;
use crate::protocol::{LoadedSourcesResponseBody, Source, SourceArguments, SourceResponseBody};
use crate::state::Adapter;

impl<W: Write> Adapter<W> {
    pub fn source(&mut self, a: SourceArguments) -> Result<SourceResponseBody, Error> {
        let r = a
            .source
            .as_ref()
            .and_then(|s| s.source_reference)
            .or(a.source_reference)
            .filter(|&r| r > 0)
            .ok_or(Error::NoSourceReference)?;
        let item = self.sources.item(r)?;
        Ok(SourceResponseBody {
            content: item.text.clone(),
            mime_type: Some("text/x-glsl".into()),
        })
    }

    /// Every shader the program compiled: its file, or a `sourceReference`.
    pub fn loaded_sources(&mut self) -> Result<LoadedSourcesResponseBody, Error> {
        if self.engine.is_none() {
            return Ok(LoadedSourcesResponseBody::default());
        }
        let Ok(shaders) = self.call(None, |s| s.shaders()) else {
            return Ok(LoadedSourcesResponseBody {
                sources: self.sources.all(),
            });
        };
        let mut sources: Vec<Source> = Vec::new();
        for sh in shaders {
            let src = match &sh.file {
                Some(f) if self.sources.reference_of_file(f).is_none() => self.source_of_file(f),
                _ => {
                    let name = format!("shader {} ({})", sh.shader, sh.stage);
                    let r = self.sources.reference(sh.shader, name, &sh.source);
                    match self.sources.source(r) {
                        Some(s) => s,
                        None => continue,
                    }
                }
            };
            if !sources.contains(&src) {
                sources.push(src);
            }
        }
        Ok(LoadedSourcesResponseBody { sources })
    }
}
