// Give the new version of a replaced document its name (it was written under
// r.tmp): document, unit ids, link records
UNWIND $docs AS r
MATCH (d:Document {name: r.tmp})
SET d.name = r.name, d.replaces = null
WITH r
MATCH (u:Unit {doc: r.tmp})
SET u.uid = r.name + substring(u.uid, size(r.tmp)), u.doc = r.name
