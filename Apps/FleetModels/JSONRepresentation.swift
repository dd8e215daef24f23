public import ModelKit

// Hand-written JSON for the representations a server sends most: the same members, order and text as
// `ModelCoding.encode` (a test compares the two on many vehicles), streamed into bytes without `JSONEncoder`'s
// generic machinery (which measured as nearly half of fleetd's CPU time for a page of 50 vehicles) and without
// building a `JSONValue` tree first.

extension V1.Vehicle {
    /// Writes this vehicle as `ModelCoding.encode(self)` does (members in sorted order).
    public func writeJSON(to writer: inout JSONStreamWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id.uuidString)
        writer.key("make")
        writer.string(make)
        writer.key("model")
        writer.string(model)
        writer.key("needsMaintenance")
        writer.bool(needsMaintenance)
        writer.key("tag")
        writer.string(tag)
        writer.key("year")
        writer.integer(year)
        writer.endObject()
    }
}

extension V2.Vehicle {
    /// Writes this vehicle as `ModelCoding.encode(self)` does (members in sorted order). A last-service date
    /// outside the years 1 to 9999 (which `ModelCoding` refuses to encode) is left out.
    public func writeJSON(to writer: inout JSONStreamWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id.uuidString)
        writer.key("maintenance")
        writer.beginObject()
        writer.key("due")
        writer.bool(maintenance.due)
        if let lastServiced = maintenance.lastServiced, let text = ModelCoding.timestamp(lastServiced) {
            writer.key("lastServiced")
            writer.string(text)
        }
        writer.endObject()
        writer.key("make")
        writer.string(make)
        writer.key("model")
        writer.string(model)
        writer.key("modelYear")
        writer.integer(modelYear)
        writer.key("plate")
        writer.string(plate)
        writer.key("revision")
        writer.integer(revision)
        writer.endObject()
    }
}

extension V2.VehiclePage {
    /// Writes this page as `ModelCoding.encode(self)` does.
    public func writeJSON(to writer: inout JSONStreamWriter) {
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for item in items {
            item.writeJSON(to: &writer)
        }
        writer.endArray()
        if let nextCursor {
            writer.key("nextCursor")
            writer.string(nextCursor)
        }
        writer.endObject()
    }
}

extension Array where Element == V1.Vehicle {
    /// Writes the vehicles as a JSON array, as `ModelCoding.encode(self)` does.
    public func writeJSON(to writer: inout JSONStreamWriter) {
        writer.beginArray()
        for vehicle in self {
            vehicle.writeJSON(to: &writer)
        }
        writer.endArray()
    }
}
