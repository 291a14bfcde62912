import PkgCore

/// A format `pack --image-variants` can write beside a PNG or JPEG: the resolver's own
/// ``ImageVariant`` (its ``ImageVariant/fileSuffix`` is what the sibling's name adds:
/// `logo.png` → `logo.png.avif`), so packer and resolver agree on the names.
public typealias ImageFormat = ImageVariant
