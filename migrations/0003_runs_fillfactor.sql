-- A run row is updated a few times in its life (first step end, completion or failure). Free
-- space on its page lets those updates stay on the page (HOT), since no index covers a column
-- they write.
ALTER TABLE "cyclone_runs" SET (fillfactor = 70);
