// Placeholder replaced by the LocatorKit implementation.
public enum LocatorKitPlaceholder {}
