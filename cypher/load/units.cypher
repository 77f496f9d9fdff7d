// Unit nodes, merged on their id, with the CHILD edge
// from their parent, from packed records (format: graphprum/store/bolt_pack.py):
// 0 parent's record, 1 '='id, 2 '='label path, 3 document, 4 tag, 5 pos, 6 kind,
// 7 depth, 8 pre, 9 ppre, 10 post, 11 size, 12 start, 13 length, 14 words,
// 15 text, 16 attributes (JSON, '' for none).  start and length are integers or
// 'MpE' for M * 2^E (exact; FalkorDB's toFloat of a string is a 32-bit float).  An empty id is the parent's id +
// '/tag[pos]', an empty path the parent's path + '/tag'.  The properties go in
// one map (three times faster than one SET each on FalkorDB), the merged id
// not among them (FalkorDB 4.16 crashed re-setting an indexed id that way).
// MERGE passes on matched nodes before created ones, hence the ORDER BY.
WITH [r IN split($data, $rs) | split(r, $fs)] AS recs
WITH recs, reduce(a = [], f IN recs | a + [[
  CASE f[1] WHEN '' THEN a[toInteger(f[0])][0] + '/' + f[4] + '[' + f[5] + ']'
  ELSE substring(f[1], 1) END,
  CASE f[2] WHEN '' THEN a[toInteger(f[0])][1] + '/' + f[4] ELSE substring(f[2], 1) END
]]) AS ids
UNWIND range(0, size(recs) - 1) AS i
WITH i, recs[i] AS f, ids[i] AS id
MERGE (u:Unit {uid: id[0]})
SET u += {path: id[1], doc: $docs[toInteger(f[3])], seq: $seqs[toInteger(f[3])],
  tag: f[4], pos: toInteger(f[5]), kind: toInteger(f[6]), depth: toInteger(f[7]),
  pre: toInteger(f[8]), ppre: toInteger(f[9]), post: toInteger(f[10]), size: toInteger(f[11]),
  start: CASE WHEN f[12] CONTAINS 'p'
         THEN toInteger(split(f[12], 'p')[0]) * 2.0 ^ toInteger(split(f[12], 'p')[1])
         ELSE toFloat(toInteger(f[12])) END,
  length: CASE WHEN f[13] CONTAINS 'p'
          THEN toInteger(split(f[13], 'p')[0]) * 2.0 ^ toInteger(split(f[13], 'p')[1])
          ELSE toFloat(toInteger(f[13])) END,
  words: toInteger(f[14]), text: f[15], attributes: CASE f[16] WHEN '' THEN null ELSE f[16] END}
WITH i, f[0] AS parent, u ORDER BY i
WITH collect(u) AS nodes, collect(parent) AS parents
UNWIND range(0, size(nodes) - 1) AS i
WITH nodes, nodes[i] AS c, parents[i] AS p
WHERE p <> ''
WITH nodes[toInteger(p)] AS p, c
MERGE (p)-[:CHILD]->(c)
