//! Pipeline stages and the invocations of a draw or dispatch: the words every
//! layer (engines, agents, session, front ends) uses for "which shader" and
//! "which run of it".

use std::fmt;

use serde::{Deserialize, Serialize};

/// A pipeline stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Vertex,
    TessControl,
    TessEvaluation,
    Geometry,
    Fragment,
    Compute,
}

impl Stage {
    /// The stage a file extension stands for (`vert`, `frag`, ...), as glslang uses them.
    pub fn from_extension(ext: &str) -> Option<Stage> {
        Some(match ext {
            "vert" | "vs" => Stage::Vertex,
            "tesc" => Stage::TessControl,
            "tese" => Stage::TessEvaluation,
            "geom" | "gs" => Stage::Geometry,
            "frag" | "fs" => Stage::Fragment,
            "comp" | "cs" => Stage::Compute,
            _ => return None,
        })
    }

    pub fn short_name(self) -> &'static str {
        match self {
            Stage::Vertex => "vert",
            Stage::TessControl => "tesc",
            Stage::TessEvaluation => "tese",
            Stage::Geometry => "geom",
            Stage::Fragment => "frag",
            Stage::Compute => "comp",
        }
    }

    /// The name in machine-readable output (`tess_control`, ...).
    pub fn snake_name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::TessControl => "tess_control",
            Stage::TessEvaluation => "tess_evaluation",
            Stage::Geometry => "geometry",
            Stage::Fragment => "fragment",
            Stage::Compute => "compute",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::Vertex => "vertex",
            Stage::TessControl => "tessellation control",
            Stage::TessEvaluation => "tessellation evaluation",
            Stage::Geometry => "geometry",
            Stage::Fragment => "fragment",
            Stage::Compute => "compute",
        })
    }
}

/// One invocation of a shader in a draw or dispatch, or (as a selector) the
/// invocation to record: a fragment whose `primitive` is `None` is "the
/// fragment at this pixel, whichever primitive".
///
/// This type is the only place that knows how an invocation is packed into
/// the three key words of a debug buffer ([`Invocation::from_key`],
/// [`Invocation::key`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum Invocation {
    /// The fragment at window coordinates (x, y) (`gl_FragCoord` as the
    /// shader sees it: origin bottom-left in OpenGL, top-left in Vulkan),
    /// of primitive `primitive`.
    Fragment {
        x: u32,
        y: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        primitive: Option<u32>,
        /// The sample, for per-sample shading (not recorded yet: `None`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sample: Option<u32>,
    },
    Vertex {
        vertex: i32,
        instance: i32,
    },
    /// A compute invocation by its global id (`gl_GlobalInvocationID`).
    Compute {
        id: [u32; 3],
    },
}

/// The key word that stands for "no primitive" in a fragment key.
const NO_PRIMITIVE: u32 = u32::MAX;

impl Invocation {
    pub fn fragment(x: u32, y: u32) -> Invocation {
        Invocation::Fragment {
            x,
            y,
            primitive: None,
            sample: None,
        }
    }

    /// The invocation a debug buffer's key words name in a shader of `stage`
    /// (`None` for stages without recorded invocations).
    pub fn from_key(stage: Stage, key: [u32; 3]) -> Option<Invocation> {
        Some(match stage {
            Stage::Fragment => Invocation::Fragment {
                x: key[0],
                y: key[1],
                primitive: (key[2] != NO_PRIMITIVE).then_some(key[2]),
                sample: None,
            },
            Stage::Vertex => Invocation::Vertex {
                vertex: key[0] as i32,
                instance: key[1] as i32,
            },
            Stage::Compute => Invocation::Compute { id: key },
            _ => return None,
        })
    }

    /// The key words of a debug buffer for this invocation.
    pub fn key(&self) -> [u32; 3] {
        match *self {
            Invocation::Fragment {
                x, y, primitive, ..
            } => [x, y, primitive.unwrap_or(NO_PRIMITIVE)],
            Invocation::Vertex { vertex, instance } => [vertex as u32, instance as u32, 0],
            Invocation::Compute { id } => id,
        }
    }

    pub fn stage(&self) -> Stage {
        match self {
            Invocation::Fragment { .. } => Stage::Fragment,
            Invocation::Vertex { .. } => Stage::Vertex,
            Invocation::Compute { .. } => Stage::Compute,
        }
    }

    /// Whether `self`, as a selector, selects `other` (a fragment selector
    /// without a primitive matches every primitive at its pixel).
    pub fn selects(&self, other: &Invocation) -> bool {
        match (self, other) {
            (
                Invocation::Fragment {
                    x, y, primitive, ..
                },
                Invocation::Fragment {
                    x: x2,
                    y: y2,
                    primitive: p2,
                    ..
                },
            ) => x == x2 && y == y2 && (primitive.is_none() || primitive == p2),
            _ => self == other,
        }
    }

    /// The pixel of a fragment.
    pub fn pixel(&self) -> Option<[u32; 2]> {
        match *self {
            Invocation::Fragment { x, y, .. } => Some([x, y]),
            _ => None,
        }
    }

    /// The deterministic order stops present invocations in: primitive, then
    /// y, then x for fragments (the order a rasterizer covers them); instance,
    /// then vertex; z, y, x for compute.
    pub fn order_key(&self) -> [u32; 3] {
        let k = self.key();
        [k[2], k[1], k[0]]
    }
}

/// How a person reads it: `fragment (412,300) prim 7`, `vertex 3 instance 0`,
/// `compute (1,2,0)`.
impl fmt::Display for Invocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Invocation::Fragment {
                x,
                y,
                primitive,
                sample,
            } => {
                write!(f, "fragment ({x},{y})")?;
                if let Some(p) = primitive {
                    write!(f, " prim {p}")?;
                }
                if let Some(s) = sample {
                    write!(f, " sample {s}")?;
                }
                Ok(())
            }
            Invocation::Vertex { vertex, instance } => {
                write!(f, "vertex {vertex} instance {instance}")
            }
            Invocation::Compute { id } => write!(f, "compute ({},{},{})", id[0], id[1], id[2]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_read_as_people_say_them() {
        let cases = [
            (Stage::Fragment, [412, 300, 7], "fragment (412,300) prim 7"),
            (Stage::Fragment, [1, 2, u32::MAX], "fragment (1,2)"),
            (Stage::Vertex, [3, 1, 0], "vertex 3 instance 1"),
            (Stage::Compute, [1, 2, 0], "compute (1,2,0)"),
        ];
        for (stage, key, name) in cases {
            let inv = Invocation::from_key(stage, key).unwrap();
            assert_eq!(inv.key(), key);
            assert_eq!(inv.stage(), stage);
            assert_eq!(inv.to_string(), name);
        }
        assert_eq!(Invocation::from_key(Stage::Geometry, [0; 3]), None);
    }

    #[test]
    fn a_fragment_selector_without_primitive_selects_every_primitive() {
        let any = Invocation::fragment(4, 5);
        let prim = Invocation::from_key(Stage::Fragment, [4, 5, 2]).unwrap();
        assert!(any.selects(&prim));
        assert!(!prim.selects(&Invocation::from_key(Stage::Fragment, [4, 5, 3]).unwrap()));
        assert!(!any.selects(&Invocation::fragment(5, 4)));
    }

    #[test]
    fn wire_shape() {
        let v = serde_json::to_string(&Invocation::fragment(1, 2)).unwrap();
        assert_eq!(v, r#"{"stage":"fragment","x":1,"y":2}"#);
        let c: Invocation = serde_json::from_str(r#"{"stage":"compute","id":[1,2,3]}"#).unwrap();
        assert_eq!(c, Invocation::Compute { id: [1, 2, 3] });
    }
}
