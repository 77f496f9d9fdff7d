// IN_PARTITION from each unit to its partition, from packed records
// (graphprum/store/bolt_pack.py, pack_members): document FS first pre FS the
// partition numbers (sid without its 'S') of the units from that pre on
UNWIND split($data, $rs) AS g
WITH split(g, $fs) AS f
WITH f[0] AS doc, toInteger(f[1]) AS lo, split(f[2], ',') AS parts
MATCH (u:Unit {doc: doc})
WHERE u.pre >= lo AND u.pre < lo + size(parts)
MATCH (s:Summary {sid: 'S' + parts[u.pre - lo], axpre: $axpre})
MERGE (u)-[:IN_PARTITION]->(s)
