// Unit nodes of a load into an empty store, created with the CHILD edge from
// their parent and their HAS_ATTRIBUTE edges, from the records of
// pack_new_units (graphprum/store/bolt/pack.py): 0 index of the parent's id in
// $parents ('' for a root), 1 id ('' for the parent's id + '/tag[pos]'),
// 2 index of the label path in $paths, 3 document, 4 tag, 5 pos, 6 kind,
// 7 depth, 8 pre, 9 ppre, 10 post, 11 size, 12 start, 13 length, 14 words,
// 15 text, 16 attributes (JSON, '' for none), 17 nids of its Attribute nodes
// (joined with $ns; written before), start and length as in units.cypher.
// A parent is found by its id: created earlier in this query or by an earlier
// batch (records are in preorder).  No WHERE on a value bound before the
// CREATE: FalkorDB 4.16 moves such a filter above the CREATE, and the rows it
// drops are never created.  Past the CREATE only the two fields still used
// travel on (carrying all 18 cost the server a tenth more CPU per unit).
UNWIND [r IN split($data, $rs) | split(r, $fs)] AS f
CREATE (u:Unit {uid: CASE f[1] WHEN '' THEN $parents[toInteger(f[0])] + '/' + f[4] + '[' + f[5] + ']'
                ELSE f[1] END,
  path: $paths[toInteger(f[2])], doc: $docs[toInteger(f[3])], seq: $seqs[toInteger(f[3])],
  tag: f[4], pos: toInteger(f[5]), kind: toInteger(f[6]), depth: toInteger(f[7]),
  pre: toInteger(f[8]), ppre: toInteger(f[9]), post: toInteger(f[10]), size: toInteger(f[11]),
  start: CASE WHEN f[12] CONTAINS 'p'
         THEN toInteger(split(f[12], 'p')[0]) * 2.0 ^ toInteger(split(f[12], 'p')[1])
         ELSE toFloat(toInteger(f[12])) END,
  length: CASE WHEN f[13] CONTAINS 'p'
          THEN toInteger(split(f[13], 'p')[0]) * 2.0 ^ toInteger(split(f[13], 'p')[1])
          ELSE toFloat(toInteger(f[13])) END,
  words: toInteger(f[14]), text: f[15], attributes: CASE f[16] WHEN '' THEN null ELSE f[16] END})
WITH u, f[0] AS parent, f[17] AS nids
OPTIONAL MATCH (p:Unit {uid: CASE parent WHEN '' THEN '' ELSE $parents[toInteger(parent)] END})
FOREACH (x IN CASE WHEN p IS NULL THEN [] ELSE [p] END | CREATE (x)-[:CHILD]->(u))
WITH u, nids
UNWIND CASE nids WHEN '' THEN [] ELSE split(nids, $ns) END AS nid
MATCH (a:Attribute {nid: nid})
CREATE (u)-[:HAS_ATTRIBUTE]->(a)
