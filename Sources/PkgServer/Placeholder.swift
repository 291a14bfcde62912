public enum PkgServerPlaceholder {}
