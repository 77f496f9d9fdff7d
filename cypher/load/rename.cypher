// Give the new version of a replaced document its name (it was written under
// r.tmp): document and unit ids, after its link records (load/rename_links), so
// that a document still named r.tmp is one whose renaming is to be done
UNWIND $docs AS r
MATCH (d:Document {name: r.tmp})
SET d.name = r.name, d.replaces = null
WITH r
MATCH (u:Unit {doc: r.tmp})
SET u.uid = r.name + substring(u.uid, size(r.tmp)), u.doc = r.name
