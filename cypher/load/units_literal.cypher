// Unit nodes, merged on their id, with the CHILD edge from their parent, from
// packed records that all carry their id, label path and parent's id
// (graphprum/store/bolt_pack.py, pack_literal_units; fields as in
// load/units.cypher, field 0 the parent's '='id): linear in the batch size, for
// batches of many units (FalkorDB's Redis port, Neo4j).  Parents are found by
// id (created earlier in the query, or by an earlier batch); CHILD edges are
// created, not merged: each child comes once, and these writes are not retried
// half-done.
UNWIND [r IN split($data, $rs) | split(r, $fs)] AS f
MERGE (u:Unit {uid: substring(f[1], 1)})
SET u += {path: substring(f[2], 1), doc: $docs[toInteger(f[3])], seq: $seqs[toInteger(f[3])],
  tag: f[4], pos: toInteger(f[5]), kind: toInteger(f[6]), depth: toInteger(f[7]),
  pre: toInteger(f[8]), ppre: toInteger(f[9]), post: toInteger(f[10]), size: toInteger(f[11]),
  start: CASE WHEN f[12] CONTAINS 'p'
         THEN toInteger(split(f[12], 'p')[0]) * 2.0 ^ toInteger(split(f[12], 'p')[1])
         ELSE toFloat(toInteger(f[12])) END,
  length: CASE WHEN f[13] CONTAINS 'p'
          THEN toInteger(split(f[13], 'p')[0]) * 2.0 ^ toInteger(split(f[13], 'p')[1])
          ELSE toFloat(toInteger(f[13])) END,
  words: toInteger(f[14]), text: f[15], attributes: CASE f[16] WHEN '' THEN null ELSE f[16] END}
WITH u, f[0] AS parent
WHERE parent <> ''
MATCH (p:Unit {uid: substring(parent, 1)})
CREATE (p)-[:CHILD]->(u)
