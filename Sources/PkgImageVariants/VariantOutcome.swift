/// What became of one ``VariantCandidate``.
enum VariantOutcome {
    /// Write `bytes`; `quality` is the lossy step, nil when lossless.
    case keep(bytes: [UInt8], ssim: Double, quality: Int?)
    /// Write nothing, for this one-line reason.
    case decline(String)
}
