-- Files quarantined for clashing with a renamed file now name its new path.
UPDATE quarantine
SET clashes_with = list_sort(list_transform(clashes_with, lambda p: CASE WHEN p = $old THEN $new ELSE p END))
WHERE list_contains(clashes_with, $old)
