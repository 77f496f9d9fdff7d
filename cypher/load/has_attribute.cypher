// HAS_ATTRIBUTE from units to their Attribute nodes, from packed records:
// unit id FS attribute nid
UNWIND split($data, $rs) AS r
WITH split(r, $fs) AS f
MATCH (u:Unit {uid: f[0]})
MATCH (a:Attribute {nid: f[1]})
MERGE (u)-[:HAS_ATTRIBUTE]->(a)
