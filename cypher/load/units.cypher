// Unit nodes of new documents, created, with the CHILD edge from their parent
// (a load removes what an interrupted one left and writes a replacement under a
// name of its own, so no id exists yet; three times faster than MERGE and SET
// on FalkorDB), from packed records (graphprum/store/bolt/pack.py): 0 the parent's id ('' for a
// root), 1 id, 2 label path, 3 document, 4 tag, 5 pos, 6 kind, 7 depth, 8 pre,
// 9 ppre, 10 post, 11 size, 12 start, 13 length, 14 words, 15 text,
// 16 attributes (JSON, '' for none).  start and length are integers or 'MpE'
// for M * 2^E (exact; FalkorDB's toFloat of a string is a 32-bit float).  A parent is found by its id: created earlier in this query or by
// an earlier batch (records are in preorder).
UNWIND [r IN split($data, $rs) | split(r, $fs)] AS f
CREATE (u:Unit {uid: f[1], path: f[2], doc: $docs[toInteger(f[3])], seq: $seqs[toInteger(f[3])],
  tag: f[4], pos: toInteger(f[5]), kind: toInteger(f[6]), depth: toInteger(f[7]),
  pre: toInteger(f[8]), ppre: toInteger(f[9]), post: toInteger(f[10]), size: toInteger(f[11]),
  start: CASE WHEN f[12] CONTAINS 'p'
         THEN toInteger(split(f[12], 'p')[0]) * 2.0 ^ toInteger(split(f[12], 'p')[1])
         ELSE toFloat(toInteger(f[12])) END,
  length: CASE WHEN f[13] CONTAINS 'p'
          THEN toInteger(split(f[13], 'p')[0]) * 2.0 ^ toInteger(split(f[13], 'p')[1])
          ELSE toFloat(toInteger(f[13])) END,
  words: toInteger(f[14]), text: f[15], attributes: CASE f[16] WHEN '' THEN null ELSE f[16] END})
WITH u, f[0] AS parent
WHERE parent <> ''
MATCH (p:Unit {uid: parent})
CREATE (p)-[:CHILD]->(u)
