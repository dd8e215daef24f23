public import ModelKit

// Hand-built JSON for the representations a server sends most: the same members, order and text as
// `ModelCoding.encode` (a test compares the two on many vehicles), without `JSONEncoder`'s generic machinery, which
// measured as nearly half of fleetd's CPU time for a page of 50 vehicles.

extension V1.Vehicle {
    /// This vehicle as JSON, member for member what `ModelCoding.encode(self)` writes.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object.reserveCapacity(6)
        object["id"] = .string(id.uuidString)
        object["make"] = .string(make)
        object["model"] = .string(model)
        object["needsMaintenance"] = .bool(needsMaintenance)
        object["tag"] = .string(tag)
        object["year"] = .integer(Int64(year))
        return .object(object)
    }
}

extension V2.Vehicle {
    /// This vehicle as JSON, member for member what `ModelCoding.encode(self)` writes. A last-service date outside
    /// the years 1 to 9999 (which `ModelCoding` refuses to encode) is left out.
    public var jsonValue: JSONValue {
        var maintenanceObject = JSONObject()
        maintenanceObject.reserveCapacity(2)
        maintenanceObject["due"] = .bool(maintenance.due)
        if let lastServiced = maintenance.lastServiced, let text = ModelCoding.timestamp(lastServiced) {
            maintenanceObject["lastServiced"] = .string(text)
        }
        var object = JSONObject()
        object.reserveCapacity(7)
        object["id"] = .string(id.uuidString)
        object["maintenance"] = .object(maintenanceObject)
        object["make"] = .string(make)
        object["model"] = .string(model)
        object["modelYear"] = .integer(Int64(modelYear))
        object["plate"] = .string(plate)
        object["revision"] = .integer(Int64(revision))
        return .object(object)
    }
}

extension V2.VehiclePage {
    /// This page as JSON, member for member what `ModelCoding.encode(self)` writes.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["items"] = .array(items.map(\.jsonValue))
        if let nextCursor { object["nextCursor"] = .string(nextCursor) }
        return .object(object)
    }
}
