// Text snippets and attributes of the units of some stored documents
UNWIND $names AS name
MATCH (d:Document {name: name})
WHERE d.complete
MATCH (u:Unit {doc: name})
RETURN name, u.pre AS pre, u.text AS text, u.attributes AS attributes
