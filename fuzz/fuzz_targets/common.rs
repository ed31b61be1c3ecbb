//! What the model-running targets share: the models, loaded once per process from
//! `$RMAPCHECK_MODELS`, the repository's `models/`, or (a target copied away from the
//! repository, as ClusterFuzzLite runs them: `.clusterfuzzlite/build.sh`) `rmapcheck-models/`
//! beside the executable.

use rmapcheck::fuzzing;
use std::path::Path;
use std::sync::OnceLock;

pub fn models() -> &'static [fuzzing::FuzzModel] {
    static MODELS: OnceLock<Vec<fuzzing::FuzzModel>> = OnceLock::new();
    MODELS.get_or_init(|| {
        let mut default = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        if !default.is_dir() {
            let exe = std::env::current_exe().ok();
            if let Some(beside) = exe.as_deref().and_then(Path::parent) {
                default = beside.join("rmapcheck-models");
            }
        }
        let dir = fuzzing::models_dir(&default);
        match fuzzing::load_models(&dir) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("rmapcheck fuzz: cannot load the models: {e}");
                std::process::exit(2);
            }
        }
    })
}
