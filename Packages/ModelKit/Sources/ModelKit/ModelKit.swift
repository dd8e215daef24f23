// Placeholder replaced by the ModelKit implementation.
public enum ModelKitPlaceholder {}
