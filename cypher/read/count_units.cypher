// Units of the stored documents, all kinds or one ($kind: 0..3, or -1 for all)
MATCH (d:Document)
WHERE d.complete
RETURN sum(CASE WHEN $kind < 0 THEN d.count ELSE d.kind_counts[$kind] END) AS n
