//! The scripted answers to a server's own requests (`elicitation`, `sampling`, `roots`, at the
//! top level and per test): content only with `accept`, and roots that are `file://` URIs.

use super::Ctx;
use super::ranges::under;
use crate::config::node::Step;
use crate::config::{Config, ElicitationAction, ElicitationAnswer};

/// Checks the answers at the top level and in every test, each error kept in `ctx`.
pub(super) fn check_answers(ctx: &Ctx<'_>, config: &Config) {
    check_one(
        ctx,
        config.elicitation.as_ref(),
        config.roots.as_deref(),
        &[],
    );
    for (i, test) in config.tests.iter().enumerate() {
        let here = [Step::Key("tests"), Step::Index(i)];
        check_one(ctx, test.elicitation.as_ref(), test.roots.as_deref(), &here);
    }
}

fn check_one(
    ctx: &Ctx<'_>,
    elicitation: Option<&ElicitationAnswer>,
    roots: Option<&[String]>,
    here: &[Step<'_>],
) {
    if let Some(e) = elicitation
        && e.action != ElicitationAction::Accept
        && e.content.is_some()
    {
        let steps = under(&under(here, "elicitation"), "content");
        ctx.report(ctx.error(
            ctx.pos(&steps),
            format!(
                "`{}` is only sent with `action: accept`, not with `{}`",
                super::path_of(&steps),
                e.action.as_str()
            ),
            Some("remove `content`, or write `action: accept`".to_owned()),
        ));
    }
    for (i, uri) in roots.unwrap_or_default().iter().enumerate() {
        if uri.starts_with("file://") {
            continue;
        }
        let mut steps = under(here, "roots");
        steps.push(Step::Index(i));
        ctx.report(ctx.error(
            ctx.pos(&steps),
            format!(
                "`{}` must be a `file://` URI (MCP allows no other roots), got `{uri}`",
                super::path_of(&steps)
            ),
            Some("write the folder as a URI, e.g. `file:///home/me/project`".to_owned()),
        ));
    }
}
