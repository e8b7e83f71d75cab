//! What the move means for each Windows tool found on the Windows side: one line per tool,
//! naming the copy as Windows reaches it (`unc`) and as WSL does (`linux`). What each tool does
//! there and the way round it are worded in `report/text/windows.rs` (sources in
//! `docs/windows.md`); JSON carries them as `expect` and `fix`.

use crate::measure::windows_tools::{Tool, ToolId};

/// One tool's line: what to expect after the move, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolLine {
    pub id: ToolId,
    pub name: &'static str,
    /// The copy as Windows reaches it: `\\wsl.localhost\<distro>\...`.
    pub unc: String,
    /// The copy inside WSL, quoted for a shell.
    pub linux: String,
}

/// The lines for `tools`, the copy being at `unc` (`\\wsl.localhost\<distro>\...`) and `linux`.
pub fn after_move(tools: &[Tool], unc: &str, linux: &str) -> Vec<ToolLine> {
    tools
        .iter()
        .map(|tool| ToolLine {
            id: tool.id,
            name: tool.name,
            unc: unc.to_string(),
            linux: linux.to_string(),
        })
        .collect()
}
