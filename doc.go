// Package dynamo holds Dynamo's domain: the XMLData document that every source
// is turned into, the sources that are polled, the versions and items that are
// archived, and the Store interface that the storage packages implement.
//
// It depends on nothing outside the standard library and knows nothing of
// HTTP, SQL or HTML: the wrapper and the native-feed parser produce its
// types, storage keeps them, transform renders them, and the API serves them.
package dynamo
