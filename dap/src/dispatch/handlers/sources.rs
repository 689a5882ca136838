//! `source` and `loadedSources`: shader texts that exist only in the program get a `sourceReference`.

use crate::dispatch::*;

impl<W: Write> Server<W> {
    /// The source a file is shown as: the client's own, a `sourceReference`
    /// source for shader texts, else the path.
    pub(in crate::dispatch) fn source_of_file(&self, f: &Path) -> p::Source {
        if let Some(s) = self.breakpoints.client_source(f) {
            let mut s = s.clone();
            if s.name.is_none() {
                s.name = s.path.as_deref().and_then(|p| source_of(p).name);
            }
            return s;
        }
        if let Some(s) = self
            .sources
            .reference_of_file(f)
            .and_then(|r| self.sources.source(r))
        {
            return s;
        }
        source_of(&f.display().to_string())
    }

    pub(in crate::dispatch) fn source(&mut self, a: p::SourceArguments) -> Reply {
        let r = a
            .source
            .as_ref()
            .and_then(|s| s.source_reference)
            .or(a.source_reference)
            .filter(|&r| r > 0)
            .ok_or("`source` needs a sourceReference")?;
        let item = self
            .sources
            .item(r)
            .ok_or_else(|| format!("no source {r}"))?;
        json_body(p::SourceResponse {
            content: item.text.clone(),
            mime_type: "text/x-glsl".into(),
        })
    }

    /// Every shader the program compiled: its file, or a `sourceReference`.
    pub(in crate::dispatch) fn loaded_sources(&mut self) -> Reply {
        if self.engine.is_none() {
            return json_body(p::LoadedSourcesResponse {
                sources: Vec::new(),
            });
        }
        let shaders = match self.call(None, |s| s.shaders()) {
            Ok(s) => s,
            Err(_) => {
                return json_body(p::LoadedSourcesResponse {
                    sources: self.known_sources(),
                })
            }
        };
        let mut out: Vec<p::Source> = Vec::new();
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
            if !out.contains(&src) {
                out.push(src);
            }
        }
        json_body(p::LoadedSourcesResponse { sources: out })
    }

    pub(in crate::dispatch) fn known_sources(&self) -> Vec<p::Source> {
        (1..=self.sources.items.len() as i64)
            .filter_map(|r| self.sources.source(r))
            .collect()
    }
}
