public import HTTPTypes
public import ModelKit

// The types of other modules that RequestKit's API asks its users to name, reachable with `import RequestKit`
// alone. They are the same types, not copies: a file that imports ModelKit or HTTPTypes as well sees no difference.
// (With the upcoming feature `MemberImportVisibility` enabled in your module, using their members, such as
// `.get` or `.authorization`, still needs `import HTTPTypes`, and `.v2` needs `import ModelKit`.)

/// A JSON document, numbers kept as written (ModelKit's `JSONValue`).
public typealias JSONValue = ModelKit.JSONValue
/// The members of a JSON object in order (ModelKit's `JSONObject`).
public typealias JSONObject = ModelKit.JSONObject
/// An API version such as `v2` (ModelKit's `APIVersion`).
public typealias APIVersion = ModelKit.APIVersion
/// Header fields of a request or response (swift-http-types' `HTTPFields`).
public typealias HTTPFields = HTTPTypes.HTTPFields
/// One header field and, as `HTTPField.Name`, the field names (swift-http-types' `HTTPField`).
public typealias HTTPField = HTTPTypes.HTTPField
/// An HTTP request head; `HTTPRequest.Method` is the method type (swift-http-types' `HTTPRequest`).
public typealias HTTPRequest = HTTPTypes.HTTPRequest
/// An HTTP response head; `HTTPResponse.Status` is the status type (swift-http-types' `HTTPResponse`).
public typealias HTTPResponse = HTTPTypes.HTTPResponse
