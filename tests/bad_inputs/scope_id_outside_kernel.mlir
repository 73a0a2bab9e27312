// EXPECT-ERROR: must be inside a tirx.kernel
%0 = tirx.lane_id : index
