// EXPECT-ERROR: needs a multiple of 128 threads
tirx.kernel @k() grid [1] threads [96] {
  %wg = tirx.warpgroup_id : index
  tirx.return
}
