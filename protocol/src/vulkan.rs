//! How the session enables the Vulkan agent (a layer) for a program: the
//! layer's name and library, and the manifest the loader reads from a
//! directory named in `VK_ADD_LAYER_PATH`.

/// The layer's name (`VK_INSTANCE_LAYERS`).
pub const LAYER_NAME: &str = "VK_LAYER_SHADERDBG_debug";

/// The layer library's file name, next to the GL agent's.
pub const LIBRARY: &str = "libVkLayer_shaderdbg.so";

/// The manifest's file name.
pub const MANIFEST: &str = "VkLayer_shaderdbg.json";

/// The layer manifest for the library at `library_path` (absolute).
pub fn manifest(library_path: &str) -> String {
    let path = serde_json::Value::String(library_path.to_string());
    format!(
        r#"{{
    "file_format_version": "1.2.0",
    "layer": {{
        "name": "{LAYER_NAME}",
        "type": "GLOBAL",
        "library_path": {path},
        "api_version": "1.3.0",
        "implementation_version": "1",
        "description": "shaderdbg: source-level shader debugging"
    }}
}}
"#
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn manifest_is_json_naming_the_library() {
        let m: serde_json::Value =
            serde_json::from_str(&super::manifest("/a \"b\"/lib.so")).expect("JSON");
        assert_eq!(m["layer"]["library_path"], "/a \"b\"/lib.so");
        assert_eq!(m["layer"]["name"], super::LAYER_NAME);
    }
}
