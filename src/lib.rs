//! wsl-place: is this repository on the wrong file system?

pub fn run() -> i32 {
    0
}
