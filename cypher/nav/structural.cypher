// PRUM eq. 9 pairs among a topic's units: x and y in one document, one containing
// the other (pre/post interval test); P = length of the inner unit / length of the
// outer one ($measure is 'length' or 'words'); a unit of length 0 leads nowhere and
// is reached from nowhere (P = 0), and a unit to itself is left to the caller (P = 1).
// Portable: no toFloat (LadybugDB) and no APOC; WITH before the second match, or
// FalkorDB 4.16 joins by scanning every Unit.
UNWIND $sources AS sid
MATCH (x:Unit {uid: sid})
WITH x
MATCH (y:Unit {doc: x.doc})
WHERE y.uid IN $targets AND x.uid <> y.uid
  AND ((y.pre <= x.pre AND x.post <= y.post) OR (x.pre <= y.pre AND y.post <= x.post))
WITH x, y,
     CASE WHEN $measure = 'words' THEN 1.0 * x.words ELSE 1.0 * x.length END AS lx,
     CASE WHEN $measure = 'words' THEN 1.0 * y.words ELSE 1.0 * y.length END AS ly
WITH x, y, CASE WHEN y.pre <= x.pre THEN lx ELSE ly END AS inner,
     CASE WHEN y.pre <= x.pre THEN ly ELSE lx END AS outer
WHERE inner > 0
RETURN x.uid AS source, y.uid AS target, inner / outer AS p
