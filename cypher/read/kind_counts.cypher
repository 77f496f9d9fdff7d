// Stored documents and units per kind (element, page, segment, video)
MATCH (d:Document)
WHERE d.complete
RETURN d.kind AS kind, count(d) AS documents, sum(d.kind_counts[0]) AS elements,
       sum(d.kind_counts[1]) AS pages, sum(d.kind_counts[2]) AS segments,
       sum(d.kind_counts[3]) AS videos
