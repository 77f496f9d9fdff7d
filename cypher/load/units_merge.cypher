// Unit nodes, merged on their id, with the CHILD edge from their parent (as
// load/units.cypher, which creates them, but safe to run twice: over FalkorDB's
// Bolt port, where the driver may run a write again after a lost connection and
// FalkorDB has no transaction to undo the first), from packed records
// (graphprum/store/bolt/pack.py): 0 the parent's id ('' for a
// root), 1 id, 2 label path, 3 document, 4 tag, 5 pos, 6 kind, 7 depth, 8 pre,
// 9 ppre, 10 post, 11 size, 12 start, 13 length, 14 words, 15 text,
// 16 attributes (JSON, '' for none).  start and length are integers or 'MpE'
// for M * 2^E (exact; FalkorDB's toFloat of a string is a 32-bit float).  The
// properties go in one map (three times faster than one SET each on FalkorDB),
// the merged id not among them (FalkorDB 4.16 crashed re-setting an indexed id
// that way).  A parent is found by its id: created earlier in this query or by
// an earlier batch (records are in preorder).
UNWIND [r IN split($data, $rs) | split(r, $fs)] AS f
MERGE (u:Unit {uid: f[1]})
SET u += {path: f[2], doc: $docs[toInteger(f[3])], seq: $seqs[toInteger(f[3])],
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
MATCH (p:Unit {uid: parent})
MERGE (p)-[:CHILD]->(u)
