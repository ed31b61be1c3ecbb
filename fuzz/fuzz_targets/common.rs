//! What the model-running targets share: the models, loaded once per process from
//! `$RMAPCHECK_MODELS` or the repository's `models/`.

use rmapcheck::fuzzing;
use std::path::Path;
use std::sync::OnceLock;

pub fn models() -> &'static [fuzzing::FuzzModel] {
    static MODELS: OnceLock<Vec<fuzzing::FuzzModel>> = OnceLock::new();
    MODELS.get_or_init(|| {
        let default = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
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
