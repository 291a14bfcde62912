// Where libpkgctl-resolver is: PKGCTL_RESOLVER_LIB_DIR, else what pkg-config says.
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=PKGCTL_RESOLVER_LIB_DIR");
    if let Ok(dir) = std::env::var("PKGCTL_RESOLVER_LIB_DIR") {
        println!("cargo:rustc-link-search=native={dir}");
    } else if let Ok(out) = Command::new("pkg-config").args(["--libs-only-L", "pkgctl-resolver"]).output() {
        for flag in String::from_utf8_lossy(&out.stdout).split_whitespace() {
            if let Some(dir) = flag.strip_prefix("-L") {
                println!("cargo:rustc-link-search=native={dir}");
            }
        }
    }
    println!("cargo:rustc-link-lib=dylib=pkgctl-resolver");
}
