//! `toolproof rows suggest` (stub).
use crate::cli::SuggestArgs;
use crate::settings::Env;
pub(crate) fn run(_args: &SuggestArgs, _env: &Env) -> Result<(), super::Stop> {
    Ok(())
}
