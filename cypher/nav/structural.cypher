// PRUM eq. 9 pairs among a topic's units: x and y in one document, one containing
// the other (pre/post interval test); P = smaller length / larger length
// ($measure is 'length' or 'words'; 1 when both are 0)
UNWIND $sources AS sid
MATCH (x:Unit {uid: sid})
MATCH (y:Unit {doc: x.doc})
WHERE y.uid IN $targets
  AND ((y.pre <= x.pre AND x.post <= y.post) OR (x.pre <= y.pre AND y.post <= x.post))
WITH x, y,
     CASE WHEN $measure = 'words' THEN toFloat(x.words) ELSE toFloat(x.length) END AS lx,
     CASE WHEN $measure = 'words' THEN toFloat(y.words) ELSE toFloat(y.length) END AS ly
RETURN x.uid AS source, y.uid AS target,
       CASE WHEN x.uid = y.uid THEN 1.0
            WHEN y.pre <= x.pre THEN CASE WHEN ly = 0 THEN 1.0 ELSE lx / ly END
            ELSE CASE WHEN lx = 0 THEN 1.0 ELSE ly / lx END END AS p
