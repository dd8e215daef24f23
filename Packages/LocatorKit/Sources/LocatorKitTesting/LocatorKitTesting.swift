// Placeholder replaced by the LocatorKit implementation.
import LocatorKit
