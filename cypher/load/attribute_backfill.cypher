// Set one attribute property `@NAME` of stored units from packed records:
// unit id FS value ({property}: the name in backquotes)
UNWIND split($data, $rs) AS r
WITH split(r, $fs) AS f
MATCH (u:Unit {uid: f[0]})
SET u.{property} = f[1]
