import PkgCore

/// The local preview server over the resolver (see the `serve` issue); this
/// module holds it so that `pkgctl` and apps link one place.
public enum PkgServer {}
