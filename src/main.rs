#![deny(unsafe_code)]

fn main() {
    std::process::exit(wsl_place::run());
}
