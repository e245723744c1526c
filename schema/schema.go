// Package schema holds the schemas Dynamo's documents are checked against,
// embedded so that the binary can serve them and tests can validate with
// them without anything beside the repository:
//
//   - xmldata.xsd: XMLData, the document the wrapper and the native-feed
//     parser produce and storage versions (W3C XML Schema);
//   - atom.rnc: RFC 4287's RELAX NG Compact grammar for Atom 1.0 (the
//     RFC's appendix B), which the tests give to jing.
package schema

import _ "embed"

// XMLData is the XML Schema of XMLData documents.
//
//go:embed xmldata.xsd
var XMLData []byte

// Atom is RFC 4287's RELAX NG Compact grammar for Atom 1.0.
//
//go:embed atom.rnc
var Atom []byte

// XMLDataPath is where `dynamo serve` publishes XMLData, relative to its
// root, so that documents and readers can point at a stable URL.
const XMLDataPath = "/schema/xmldata.xsd"
