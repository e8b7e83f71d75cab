//! Why the Windows profile cannot be told, in words.

use crate::base::pathtext::display;
use crate::base::reason::Worded;
use crate::host::windows::{InteropSaid, ProfileUnknown};

impl Worded for ProfileUnknown {
    fn sentence(&self) -> String {
        let interop = match &self.interop {
            InteropSaid::Off => "Windows interop is off (WSL_INTEROP is not set)".to_string(),
            InteropSaid::NoAnswer { problem } => {
                format!("Windows did not answer through interop ({problem})")
            }
            InteropSaid::NoProfileNamed => {
                "Windows named no profile folder WSL can see (USERPROFILE)".to_string()
            }
        };
        let users = display(&self.users);
        match self.candidates.as_slice() {
            [] => format!(
                "the Windows profile was not found: {interop} and {users} holds no profile folder"
            ),
            candidates => format!(
                "the Windows profile was not found: {interop} and {users} holds {} profiles ({}), none named {}",
                candidates.len(),
                candidates.join(", "),
                self.linux_user.as_deref().unwrap_or("after the Linux user")
            ),
        }
    }
}
