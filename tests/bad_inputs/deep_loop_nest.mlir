// EXPECT-ERROR: tirx_mlir accepts at most 128 levels
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
scf.for %i0 = %c0 to %c1 step %c1 {
scf.for %i1 = %c0 to %c1 step %c1 {
scf.for %i2 = %c0 to %c1 step %c1 {
scf.for %i3 = %c0 to %c1 step %c1 {
scf.for %i4 = %c0 to %c1 step %c1 {
scf.for %i5 = %c0 to %c1 step %c1 {
scf.for %i6 = %c0 to %c1 step %c1 {
scf.for %i7 = %c0 to %c1 step %c1 {
scf.for %i8 = %c0 to %c1 step %c1 {
scf.for %i9 = %c0 to %c1 step %c1 {
scf.for %i10 = %c0 to %c1 step %c1 {
scf.for %i11 = %c0 to %c1 step %c1 {
scf.for %i12 = %c0 to %c1 step %c1 {
scf.for %i13 = %c0 to %c1 step %c1 {
scf.for %i14 = %c0 to %c1 step %c1 {
scf.for %i15 = %c0 to %c1 step %c1 {
scf.for %i16 = %c0 to %c1 step %c1 {
scf.for %i17 = %c0 to %c1 step %c1 {
scf.for %i18 = %c0 to %c1 step %c1 {
scf.for %i19 = %c0 to %c1 step %c1 {
scf.for %i20 = %c0 to %c1 step %c1 {
scf.for %i21 = %c0 to %c1 step %c1 {
scf.for %i22 = %c0 to %c1 step %c1 {
scf.for %i23 = %c0 to %c1 step %c1 {
scf.for %i24 = %c0 to %c1 step %c1 {
scf.for %i25 = %c0 to %c1 step %c1 {
scf.for %i26 = %c0 to %c1 step %c1 {
scf.for %i27 = %c0 to %c1 step %c1 {
scf.for %i28 = %c0 to %c1 step %c1 {
scf.for %i29 = %c0 to %c1 step %c1 {
scf.for %i30 = %c0 to %c1 step %c1 {
scf.for %i31 = %c0 to %c1 step %c1 {
scf.for %i32 = %c0 to %c1 step %c1 {
scf.for %i33 = %c0 to %c1 step %c1 {
scf.for %i34 = %c0 to %c1 step %c1 {
scf.for %i35 = %c0 to %c1 step %c1 {
scf.for %i36 = %c0 to %c1 step %c1 {
scf.for %i37 = %c0 to %c1 step %c1 {
scf.for %i38 = %c0 to %c1 step %c1 {
scf.for %i39 = %c0 to %c1 step %c1 {
scf.for %i40 = %c0 to %c1 step %c1 {
scf.for %i41 = %c0 to %c1 step %c1 {
scf.for %i42 = %c0 to %c1 step %c1 {
scf.for %i43 = %c0 to %c1 step %c1 {
scf.for %i44 = %c0 to %c1 step %c1 {
scf.for %i45 = %c0 to %c1 step %c1 {
scf.for %i46 = %c0 to %c1 step %c1 {
scf.for %i47 = %c0 to %c1 step %c1 {
scf.for %i48 = %c0 to %c1 step %c1 {
scf.for %i49 = %c0 to %c1 step %c1 {
scf.for %i50 = %c0 to %c1 step %c1 {
scf.for %i51 = %c0 to %c1 step %c1 {
scf.for %i52 = %c0 to %c1 step %c1 {
scf.for %i53 = %c0 to %c1 step %c1 {
scf.for %i54 = %c0 to %c1 step %c1 {
scf.for %i55 = %c0 to %c1 step %c1 {
scf.for %i56 = %c0 to %c1 step %c1 {
scf.for %i57 = %c0 to %c1 step %c1 {
scf.for %i58 = %c0 to %c1 step %c1 {
scf.for %i59 = %c0 to %c1 step %c1 {
scf.for %i60 = %c0 to %c1 step %c1 {
scf.for %i61 = %c0 to %c1 step %c1 {
scf.for %i62 = %c0 to %c1 step %c1 {
scf.for %i63 = %c0 to %c1 step %c1 {
scf.for %i64 = %c0 to %c1 step %c1 {
scf.for %i65 = %c0 to %c1 step %c1 {
scf.for %i66 = %c0 to %c1 step %c1 {
scf.for %i67 = %c0 to %c1 step %c1 {
scf.for %i68 = %c0 to %c1 step %c1 {
scf.for %i69 = %c0 to %c1 step %c1 {
scf.for %i70 = %c0 to %c1 step %c1 {
scf.for %i71 = %c0 to %c1 step %c1 {
scf.for %i72 = %c0 to %c1 step %c1 {
scf.for %i73 = %c0 to %c1 step %c1 {
scf.for %i74 = %c0 to %c1 step %c1 {
scf.for %i75 = %c0 to %c1 step %c1 {
scf.for %i76 = %c0 to %c1 step %c1 {
scf.for %i77 = %c0 to %c1 step %c1 {
scf.for %i78 = %c0 to %c1 step %c1 {
scf.for %i79 = %c0 to %c1 step %c1 {
scf.for %i80 = %c0 to %c1 step %c1 {
scf.for %i81 = %c0 to %c1 step %c1 {
scf.for %i82 = %c0 to %c1 step %c1 {
scf.for %i83 = %c0 to %c1 step %c1 {
scf.for %i84 = %c0 to %c1 step %c1 {
scf.for %i85 = %c0 to %c1 step %c1 {
scf.for %i86 = %c0 to %c1 step %c1 {
scf.for %i87 = %c0 to %c1 step %c1 {
scf.for %i88 = %c0 to %c1 step %c1 {
scf.for %i89 = %c0 to %c1 step %c1 {
scf.for %i90 = %c0 to %c1 step %c1 {
scf.for %i91 = %c0 to %c1 step %c1 {
scf.for %i92 = %c0 to %c1 step %c1 {
scf.for %i93 = %c0 to %c1 step %c1 {
scf.for %i94 = %c0 to %c1 step %c1 {
scf.for %i95 = %c0 to %c1 step %c1 {
scf.for %i96 = %c0 to %c1 step %c1 {
scf.for %i97 = %c0 to %c1 step %c1 {
scf.for %i98 = %c0 to %c1 step %c1 {
scf.for %i99 = %c0 to %c1 step %c1 {
scf.for %i100 = %c0 to %c1 step %c1 {
scf.for %i101 = %c0 to %c1 step %c1 {
scf.for %i102 = %c0 to %c1 step %c1 {
scf.for %i103 = %c0 to %c1 step %c1 {
scf.for %i104 = %c0 to %c1 step %c1 {
scf.for %i105 = %c0 to %c1 step %c1 {
scf.for %i106 = %c0 to %c1 step %c1 {
scf.for %i107 = %c0 to %c1 step %c1 {
scf.for %i108 = %c0 to %c1 step %c1 {
scf.for %i109 = %c0 to %c1 step %c1 {
scf.for %i110 = %c0 to %c1 step %c1 {
scf.for %i111 = %c0 to %c1 step %c1 {
scf.for %i112 = %c0 to %c1 step %c1 {
scf.for %i113 = %c0 to %c1 step %c1 {
scf.for %i114 = %c0 to %c1 step %c1 {
scf.for %i115 = %c0 to %c1 step %c1 {
scf.for %i116 = %c0 to %c1 step %c1 {
scf.for %i117 = %c0 to %c1 step %c1 {
scf.for %i118 = %c0 to %c1 step %c1 {
scf.for %i119 = %c0 to %c1 step %c1 {
scf.for %i120 = %c0 to %c1 step %c1 {
scf.for %i121 = %c0 to %c1 step %c1 {
scf.for %i122 = %c0 to %c1 step %c1 {
scf.for %i123 = %c0 to %c1 step %c1 {
scf.for %i124 = %c0 to %c1 step %c1 {
scf.for %i125 = %c0 to %c1 step %c1 {
scf.for %i126 = %c0 to %c1 step %c1 {
scf.for %i127 = %c0 to %c1 step %c1 {
scf.for %i128 = %c0 to %c1 step %c1 {
scf.for %i129 = %c0 to %c1 step %c1 {
scf.for %i130 = %c0 to %c1 step %c1 {
scf.for %i131 = %c0 to %c1 step %c1 {
scf.for %i132 = %c0 to %c1 step %c1 {
scf.for %i133 = %c0 to %c1 step %c1 {
scf.for %i134 = %c0 to %c1 step %c1 {
scf.for %i135 = %c0 to %c1 step %c1 {
scf.for %i136 = %c0 to %c1 step %c1 {
scf.for %i137 = %c0 to %c1 step %c1 {
scf.for %i138 = %c0 to %c1 step %c1 {
scf.for %i139 = %c0 to %c1 step %c1 {
scf.for %i140 = %c0 to %c1 step %c1 {
scf.for %i141 = %c0 to %c1 step %c1 {
scf.for %i142 = %c0 to %c1 step %c1 {
scf.for %i143 = %c0 to %c1 step %c1 {
scf.for %i144 = %c0 to %c1 step %c1 {
scf.for %i145 = %c0 to %c1 step %c1 {
scf.for %i146 = %c0 to %c1 step %c1 {
scf.for %i147 = %c0 to %c1 step %c1 {
scf.for %i148 = %c0 to %c1 step %c1 {
scf.for %i149 = %c0 to %c1 step %c1 {
scf.for %i150 = %c0 to %c1 step %c1 {
scf.for %i151 = %c0 to %c1 step %c1 {
scf.for %i152 = %c0 to %c1 step %c1 {
scf.for %i153 = %c0 to %c1 step %c1 {
scf.for %i154 = %c0 to %c1 step %c1 {
scf.for %i155 = %c0 to %c1 step %c1 {
scf.for %i156 = %c0 to %c1 step %c1 {
scf.for %i157 = %c0 to %c1 step %c1 {
scf.for %i158 = %c0 to %c1 step %c1 {
scf.for %i159 = %c0 to %c1 step %c1 {
scf.for %i160 = %c0 to %c1 step %c1 {
scf.for %i161 = %c0 to %c1 step %c1 {
scf.for %i162 = %c0 to %c1 step %c1 {
scf.for %i163 = %c0 to %c1 step %c1 {
scf.for %i164 = %c0 to %c1 step %c1 {
scf.for %i165 = %c0 to %c1 step %c1 {
scf.for %i166 = %c0 to %c1 step %c1 {
scf.for %i167 = %c0 to %c1 step %c1 {
scf.for %i168 = %c0 to %c1 step %c1 {
scf.for %i169 = %c0 to %c1 step %c1 {
scf.for %i170 = %c0 to %c1 step %c1 {
scf.for %i171 = %c0 to %c1 step %c1 {
scf.for %i172 = %c0 to %c1 step %c1 {
scf.for %i173 = %c0 to %c1 step %c1 {
scf.for %i174 = %c0 to %c1 step %c1 {
scf.for %i175 = %c0 to %c1 step %c1 {
scf.for %i176 = %c0 to %c1 step %c1 {
scf.for %i177 = %c0 to %c1 step %c1 {
scf.for %i178 = %c0 to %c1 step %c1 {
scf.for %i179 = %c0 to %c1 step %c1 {
scf.for %i180 = %c0 to %c1 step %c1 {
scf.for %i181 = %c0 to %c1 step %c1 {
scf.for %i182 = %c0 to %c1 step %c1 {
scf.for %i183 = %c0 to %c1 step %c1 {
scf.for %i184 = %c0 to %c1 step %c1 {
scf.for %i185 = %c0 to %c1 step %c1 {
scf.for %i186 = %c0 to %c1 step %c1 {
scf.for %i187 = %c0 to %c1 step %c1 {
scf.for %i188 = %c0 to %c1 step %c1 {
scf.for %i189 = %c0 to %c1 step %c1 {
scf.for %i190 = %c0 to %c1 step %c1 {
scf.for %i191 = %c0 to %c1 step %c1 {
scf.for %i192 = %c0 to %c1 step %c1 {
scf.for %i193 = %c0 to %c1 step %c1 {
scf.for %i194 = %c0 to %c1 step %c1 {
scf.for %i195 = %c0 to %c1 step %c1 {
scf.for %i196 = %c0 to %c1 step %c1 {
scf.for %i197 = %c0 to %c1 step %c1 {
scf.for %i198 = %c0 to %c1 step %c1 {
scf.for %i199 = %c0 to %c1 step %c1 {
scf.for %i200 = %c0 to %c1 step %c1 {
scf.for %i201 = %c0 to %c1 step %c1 {
scf.for %i202 = %c0 to %c1 step %c1 {
scf.for %i203 = %c0 to %c1 step %c1 {
scf.for %i204 = %c0 to %c1 step %c1 {
scf.for %i205 = %c0 to %c1 step %c1 {
scf.for %i206 = %c0 to %c1 step %c1 {
scf.for %i207 = %c0 to %c1 step %c1 {
scf.for %i208 = %c0 to %c1 step %c1 {
scf.for %i209 = %c0 to %c1 step %c1 {
scf.for %i210 = %c0 to %c1 step %c1 {
scf.for %i211 = %c0 to %c1 step %c1 {
scf.for %i212 = %c0 to %c1 step %c1 {
scf.for %i213 = %c0 to %c1 step %c1 {
scf.for %i214 = %c0 to %c1 step %c1 {
scf.for %i215 = %c0 to %c1 step %c1 {
scf.for %i216 = %c0 to %c1 step %c1 {
scf.for %i217 = %c0 to %c1 step %c1 {
scf.for %i218 = %c0 to %c1 step %c1 {
scf.for %i219 = %c0 to %c1 step %c1 {
scf.for %i220 = %c0 to %c1 step %c1 {
scf.for %i221 = %c0 to %c1 step %c1 {
scf.for %i222 = %c0 to %c1 step %c1 {
scf.for %i223 = %c0 to %c1 step %c1 {
scf.for %i224 = %c0 to %c1 step %c1 {
scf.for %i225 = %c0 to %c1 step %c1 {
scf.for %i226 = %c0 to %c1 step %c1 {
scf.for %i227 = %c0 to %c1 step %c1 {
scf.for %i228 = %c0 to %c1 step %c1 {
scf.for %i229 = %c0 to %c1 step %c1 {
scf.for %i230 = %c0 to %c1 step %c1 {
scf.for %i231 = %c0 to %c1 step %c1 {
scf.for %i232 = %c0 to %c1 step %c1 {
scf.for %i233 = %c0 to %c1 step %c1 {
scf.for %i234 = %c0 to %c1 step %c1 {
scf.for %i235 = %c0 to %c1 step %c1 {
scf.for %i236 = %c0 to %c1 step %c1 {
scf.for %i237 = %c0 to %c1 step %c1 {
scf.for %i238 = %c0 to %c1 step %c1 {
scf.for %i239 = %c0 to %c1 step %c1 {
scf.for %i240 = %c0 to %c1 step %c1 {
scf.for %i241 = %c0 to %c1 step %c1 {
scf.for %i242 = %c0 to %c1 step %c1 {
scf.for %i243 = %c0 to %c1 step %c1 {
scf.for %i244 = %c0 to %c1 step %c1 {
scf.for %i245 = %c0 to %c1 step %c1 {
scf.for %i246 = %c0 to %c1 step %c1 {
scf.for %i247 = %c0 to %c1 step %c1 {
scf.for %i248 = %c0 to %c1 step %c1 {
scf.for %i249 = %c0 to %c1 step %c1 {
scf.for %i250 = %c0 to %c1 step %c1 {
scf.for %i251 = %c0 to %c1 step %c1 {
scf.for %i252 = %c0 to %c1 step %c1 {
scf.for %i253 = %c0 to %c1 step %c1 {
scf.for %i254 = %c0 to %c1 step %c1 {
scf.for %i255 = %c0 to %c1 step %c1 {
scf.for %i256 = %c0 to %c1 step %c1 {
scf.for %i257 = %c0 to %c1 step %c1 {
scf.for %i258 = %c0 to %c1 step %c1 {
scf.for %i259 = %c0 to %c1 step %c1 {
scf.for %i260 = %c0 to %c1 step %c1 {
scf.for %i261 = %c0 to %c1 step %c1 {
scf.for %i262 = %c0 to %c1 step %c1 {
scf.for %i263 = %c0 to %c1 step %c1 {
scf.for %i264 = %c0 to %c1 step %c1 {
scf.for %i265 = %c0 to %c1 step %c1 {
scf.for %i266 = %c0 to %c1 step %c1 {
scf.for %i267 = %c0 to %c1 step %c1 {
scf.for %i268 = %c0 to %c1 step %c1 {
scf.for %i269 = %c0 to %c1 step %c1 {
scf.for %i270 = %c0 to %c1 step %c1 {
scf.for %i271 = %c0 to %c1 step %c1 {
scf.for %i272 = %c0 to %c1 step %c1 {
scf.for %i273 = %c0 to %c1 step %c1 {
scf.for %i274 = %c0 to %c1 step %c1 {
scf.for %i275 = %c0 to %c1 step %c1 {
scf.for %i276 = %c0 to %c1 step %c1 {
scf.for %i277 = %c0 to %c1 step %c1 {
scf.for %i278 = %c0 to %c1 step %c1 {
scf.for %i279 = %c0 to %c1 step %c1 {
scf.for %i280 = %c0 to %c1 step %c1 {
scf.for %i281 = %c0 to %c1 step %c1 {
scf.for %i282 = %c0 to %c1 step %c1 {
scf.for %i283 = %c0 to %c1 step %c1 {
scf.for %i284 = %c0 to %c1 step %c1 {
scf.for %i285 = %c0 to %c1 step %c1 {
scf.for %i286 = %c0 to %c1 step %c1 {
scf.for %i287 = %c0 to %c1 step %c1 {
scf.for %i288 = %c0 to %c1 step %c1 {
scf.for %i289 = %c0 to %c1 step %c1 {
scf.for %i290 = %c0 to %c1 step %c1 {
scf.for %i291 = %c0 to %c1 step %c1 {
scf.for %i292 = %c0 to %c1 step %c1 {
scf.for %i293 = %c0 to %c1 step %c1 {
scf.for %i294 = %c0 to %c1 step %c1 {
scf.for %i295 = %c0 to %c1 step %c1 {
scf.for %i296 = %c0 to %c1 step %c1 {
scf.for %i297 = %c0 to %c1 step %c1 {
scf.for %i298 = %c0 to %c1 step %c1 {
scf.for %i299 = %c0 to %c1 step %c1 {
scf.for %i300 = %c0 to %c1 step %c1 {
scf.for %i301 = %c0 to %c1 step %c1 {
scf.for %i302 = %c0 to %c1 step %c1 {
scf.for %i303 = %c0 to %c1 step %c1 {
scf.for %i304 = %c0 to %c1 step %c1 {
scf.for %i305 = %c0 to %c1 step %c1 {
scf.for %i306 = %c0 to %c1 step %c1 {
scf.for %i307 = %c0 to %c1 step %c1 {
scf.for %i308 = %c0 to %c1 step %c1 {
scf.for %i309 = %c0 to %c1 step %c1 {
scf.for %i310 = %c0 to %c1 step %c1 {
scf.for %i311 = %c0 to %c1 step %c1 {
scf.for %i312 = %c0 to %c1 step %c1 {
scf.for %i313 = %c0 to %c1 step %c1 {
scf.for %i314 = %c0 to %c1 step %c1 {
scf.for %i315 = %c0 to %c1 step %c1 {
scf.for %i316 = %c0 to %c1 step %c1 {
scf.for %i317 = %c0 to %c1 step %c1 {
scf.for %i318 = %c0 to %c1 step %c1 {
scf.for %i319 = %c0 to %c1 step %c1 {
scf.for %i320 = %c0 to %c1 step %c1 {
scf.for %i321 = %c0 to %c1 step %c1 {
scf.for %i322 = %c0 to %c1 step %c1 {
scf.for %i323 = %c0 to %c1 step %c1 {
scf.for %i324 = %c0 to %c1 step %c1 {
scf.for %i325 = %c0 to %c1 step %c1 {
scf.for %i326 = %c0 to %c1 step %c1 {
scf.for %i327 = %c0 to %c1 step %c1 {
scf.for %i328 = %c0 to %c1 step %c1 {
scf.for %i329 = %c0 to %c1 step %c1 {
scf.for %i330 = %c0 to %c1 step %c1 {
scf.for %i331 = %c0 to %c1 step %c1 {
scf.for %i332 = %c0 to %c1 step %c1 {
scf.for %i333 = %c0 to %c1 step %c1 {
scf.for %i334 = %c0 to %c1 step %c1 {
scf.for %i335 = %c0 to %c1 step %c1 {
scf.for %i336 = %c0 to %c1 step %c1 {
scf.for %i337 = %c0 to %c1 step %c1 {
scf.for %i338 = %c0 to %c1 step %c1 {
scf.for %i339 = %c0 to %c1 step %c1 {
scf.for %i340 = %c0 to %c1 step %c1 {
scf.for %i341 = %c0 to %c1 step %c1 {
scf.for %i342 = %c0 to %c1 step %c1 {
scf.for %i343 = %c0 to %c1 step %c1 {
scf.for %i344 = %c0 to %c1 step %c1 {
scf.for %i345 = %c0 to %c1 step %c1 {
scf.for %i346 = %c0 to %c1 step %c1 {
scf.for %i347 = %c0 to %c1 step %c1 {
scf.for %i348 = %c0 to %c1 step %c1 {
scf.for %i349 = %c0 to %c1 step %c1 {
scf.for %i350 = %c0 to %c1 step %c1 {
scf.for %i351 = %c0 to %c1 step %c1 {
scf.for %i352 = %c0 to %c1 step %c1 {
scf.for %i353 = %c0 to %c1 step %c1 {
scf.for %i354 = %c0 to %c1 step %c1 {
scf.for %i355 = %c0 to %c1 step %c1 {
scf.for %i356 = %c0 to %c1 step %c1 {
scf.for %i357 = %c0 to %c1 step %c1 {
scf.for %i358 = %c0 to %c1 step %c1 {
scf.for %i359 = %c0 to %c1 step %c1 {
scf.for %i360 = %c0 to %c1 step %c1 {
scf.for %i361 = %c0 to %c1 step %c1 {
scf.for %i362 = %c0 to %c1 step %c1 {
scf.for %i363 = %c0 to %c1 step %c1 {
scf.for %i364 = %c0 to %c1 step %c1 {
scf.for %i365 = %c0 to %c1 step %c1 {
scf.for %i366 = %c0 to %c1 step %c1 {
scf.for %i367 = %c0 to %c1 step %c1 {
scf.for %i368 = %c0 to %c1 step %c1 {
scf.for %i369 = %c0 to %c1 step %c1 {
scf.for %i370 = %c0 to %c1 step %c1 {
scf.for %i371 = %c0 to %c1 step %c1 {
scf.for %i372 = %c0 to %c1 step %c1 {
scf.for %i373 = %c0 to %c1 step %c1 {
scf.for %i374 = %c0 to %c1 step %c1 {
scf.for %i375 = %c0 to %c1 step %c1 {
scf.for %i376 = %c0 to %c1 step %c1 {
scf.for %i377 = %c0 to %c1 step %c1 {
scf.for %i378 = %c0 to %c1 step %c1 {
scf.for %i379 = %c0 to %c1 step %c1 {
scf.for %i380 = %c0 to %c1 step %c1 {
scf.for %i381 = %c0 to %c1 step %c1 {
scf.for %i382 = %c0 to %c1 step %c1 {
scf.for %i383 = %c0 to %c1 step %c1 {
scf.for %i384 = %c0 to %c1 step %c1 {
scf.for %i385 = %c0 to %c1 step %c1 {
scf.for %i386 = %c0 to %c1 step %c1 {
scf.for %i387 = %c0 to %c1 step %c1 {
scf.for %i388 = %c0 to %c1 step %c1 {
scf.for %i389 = %c0 to %c1 step %c1 {
scf.for %i390 = %c0 to %c1 step %c1 {
scf.for %i391 = %c0 to %c1 step %c1 {
scf.for %i392 = %c0 to %c1 step %c1 {
scf.for %i393 = %c0 to %c1 step %c1 {
scf.for %i394 = %c0 to %c1 step %c1 {
scf.for %i395 = %c0 to %c1 step %c1 {
scf.for %i396 = %c0 to %c1 step %c1 {
scf.for %i397 = %c0 to %c1 step %c1 {
scf.for %i398 = %c0 to %c1 step %c1 {
scf.for %i399 = %c0 to %c1 step %c1 {
scf.for %i400 = %c0 to %c1 step %c1 {
scf.for %i401 = %c0 to %c1 step %c1 {
scf.for %i402 = %c0 to %c1 step %c1 {
scf.for %i403 = %c0 to %c1 step %c1 {
scf.for %i404 = %c0 to %c1 step %c1 {
scf.for %i405 = %c0 to %c1 step %c1 {
scf.for %i406 = %c0 to %c1 step %c1 {
scf.for %i407 = %c0 to %c1 step %c1 {
scf.for %i408 = %c0 to %c1 step %c1 {
scf.for %i409 = %c0 to %c1 step %c1 {
scf.for %i410 = %c0 to %c1 step %c1 {
scf.for %i411 = %c0 to %c1 step %c1 {
scf.for %i412 = %c0 to %c1 step %c1 {
scf.for %i413 = %c0 to %c1 step %c1 {
scf.for %i414 = %c0 to %c1 step %c1 {
scf.for %i415 = %c0 to %c1 step %c1 {
scf.for %i416 = %c0 to %c1 step %c1 {
scf.for %i417 = %c0 to %c1 step %c1 {
scf.for %i418 = %c0 to %c1 step %c1 {
scf.for %i419 = %c0 to %c1 step %c1 {
scf.for %i420 = %c0 to %c1 step %c1 {
scf.for %i421 = %c0 to %c1 step %c1 {
scf.for %i422 = %c0 to %c1 step %c1 {
scf.for %i423 = %c0 to %c1 step %c1 {
scf.for %i424 = %c0 to %c1 step %c1 {
scf.for %i425 = %c0 to %c1 step %c1 {
scf.for %i426 = %c0 to %c1 step %c1 {
scf.for %i427 = %c0 to %c1 step %c1 {
scf.for %i428 = %c0 to %c1 step %c1 {
scf.for %i429 = %c0 to %c1 step %c1 {
scf.for %i430 = %c0 to %c1 step %c1 {
scf.for %i431 = %c0 to %c1 step %c1 {
scf.for %i432 = %c0 to %c1 step %c1 {
scf.for %i433 = %c0 to %c1 step %c1 {
scf.for %i434 = %c0 to %c1 step %c1 {
scf.for %i435 = %c0 to %c1 step %c1 {
scf.for %i436 = %c0 to %c1 step %c1 {
scf.for %i437 = %c0 to %c1 step %c1 {
scf.for %i438 = %c0 to %c1 step %c1 {
scf.for %i439 = %c0 to %c1 step %c1 {
scf.for %i440 = %c0 to %c1 step %c1 {
scf.for %i441 = %c0 to %c1 step %c1 {
scf.for %i442 = %c0 to %c1 step %c1 {
scf.for %i443 = %c0 to %c1 step %c1 {
scf.for %i444 = %c0 to %c1 step %c1 {
scf.for %i445 = %c0 to %c1 step %c1 {
scf.for %i446 = %c0 to %c1 step %c1 {
scf.for %i447 = %c0 to %c1 step %c1 {
scf.for %i448 = %c0 to %c1 step %c1 {
scf.for %i449 = %c0 to %c1 step %c1 {
scf.for %i450 = %c0 to %c1 step %c1 {
scf.for %i451 = %c0 to %c1 step %c1 {
scf.for %i452 = %c0 to %c1 step %c1 {
scf.for %i453 = %c0 to %c1 step %c1 {
scf.for %i454 = %c0 to %c1 step %c1 {
scf.for %i455 = %c0 to %c1 step %c1 {
scf.for %i456 = %c0 to %c1 step %c1 {
scf.for %i457 = %c0 to %c1 step %c1 {
scf.for %i458 = %c0 to %c1 step %c1 {
scf.for %i459 = %c0 to %c1 step %c1 {
scf.for %i460 = %c0 to %c1 step %c1 {
scf.for %i461 = %c0 to %c1 step %c1 {
scf.for %i462 = %c0 to %c1 step %c1 {
scf.for %i463 = %c0 to %c1 step %c1 {
scf.for %i464 = %c0 to %c1 step %c1 {
scf.for %i465 = %c0 to %c1 step %c1 {
scf.for %i466 = %c0 to %c1 step %c1 {
scf.for %i467 = %c0 to %c1 step %c1 {
scf.for %i468 = %c0 to %c1 step %c1 {
scf.for %i469 = %c0 to %c1 step %c1 {
scf.for %i470 = %c0 to %c1 step %c1 {
scf.for %i471 = %c0 to %c1 step %c1 {
scf.for %i472 = %c0 to %c1 step %c1 {
scf.for %i473 = %c0 to %c1 step %c1 {
scf.for %i474 = %c0 to %c1 step %c1 {
scf.for %i475 = %c0 to %c1 step %c1 {
scf.for %i476 = %c0 to %c1 step %c1 {
scf.for %i477 = %c0 to %c1 step %c1 {
scf.for %i478 = %c0 to %c1 step %c1 {
scf.for %i479 = %c0 to %c1 step %c1 {
scf.for %i480 = %c0 to %c1 step %c1 {
scf.for %i481 = %c0 to %c1 step %c1 {
scf.for %i482 = %c0 to %c1 step %c1 {
scf.for %i483 = %c0 to %c1 step %c1 {
scf.for %i484 = %c0 to %c1 step %c1 {
scf.for %i485 = %c0 to %c1 step %c1 {
scf.for %i486 = %c0 to %c1 step %c1 {
scf.for %i487 = %c0 to %c1 step %c1 {
scf.for %i488 = %c0 to %c1 step %c1 {
scf.for %i489 = %c0 to %c1 step %c1 {
scf.for %i490 = %c0 to %c1 step %c1 {
scf.for %i491 = %c0 to %c1 step %c1 {
scf.for %i492 = %c0 to %c1 step %c1 {
scf.for %i493 = %c0 to %c1 step %c1 {
scf.for %i494 = %c0 to %c1 step %c1 {
scf.for %i495 = %c0 to %c1 step %c1 {
scf.for %i496 = %c0 to %c1 step %c1 {
scf.for %i497 = %c0 to %c1 step %c1 {
scf.for %i498 = %c0 to %c1 step %c1 {
scf.for %i499 = %c0 to %c1 step %c1 {
scf.for %i500 = %c0 to %c1 step %c1 {
scf.for %i501 = %c0 to %c1 step %c1 {
scf.for %i502 = %c0 to %c1 step %c1 {
scf.for %i503 = %c0 to %c1 step %c1 {
scf.for %i504 = %c0 to %c1 step %c1 {
scf.for %i505 = %c0 to %c1 step %c1 {
scf.for %i506 = %c0 to %c1 step %c1 {
scf.for %i507 = %c0 to %c1 step %c1 {
scf.for %i508 = %c0 to %c1 step %c1 {
scf.for %i509 = %c0 to %c1 step %c1 {
scf.for %i510 = %c0 to %c1 step %c1 {
scf.for %i511 = %c0 to %c1 step %c1 {
scf.for %i512 = %c0 to %c1 step %c1 {
scf.for %i513 = %c0 to %c1 step %c1 {
scf.for %i514 = %c0 to %c1 step %c1 {
scf.for %i515 = %c0 to %c1 step %c1 {
scf.for %i516 = %c0 to %c1 step %c1 {
scf.for %i517 = %c0 to %c1 step %c1 {
scf.for %i518 = %c0 to %c1 step %c1 {
scf.for %i519 = %c0 to %c1 step %c1 {
scf.for %i520 = %c0 to %c1 step %c1 {
scf.for %i521 = %c0 to %c1 step %c1 {
scf.for %i522 = %c0 to %c1 step %c1 {
scf.for %i523 = %c0 to %c1 step %c1 {
scf.for %i524 = %c0 to %c1 step %c1 {
scf.for %i525 = %c0 to %c1 step %c1 {
scf.for %i526 = %c0 to %c1 step %c1 {
scf.for %i527 = %c0 to %c1 step %c1 {
scf.for %i528 = %c0 to %c1 step %c1 {
scf.for %i529 = %c0 to %c1 step %c1 {
scf.for %i530 = %c0 to %c1 step %c1 {
scf.for %i531 = %c0 to %c1 step %c1 {
scf.for %i532 = %c0 to %c1 step %c1 {
scf.for %i533 = %c0 to %c1 step %c1 {
scf.for %i534 = %c0 to %c1 step %c1 {
scf.for %i535 = %c0 to %c1 step %c1 {
scf.for %i536 = %c0 to %c1 step %c1 {
scf.for %i537 = %c0 to %c1 step %c1 {
scf.for %i538 = %c0 to %c1 step %c1 {
scf.for %i539 = %c0 to %c1 step %c1 {
scf.for %i540 = %c0 to %c1 step %c1 {
scf.for %i541 = %c0 to %c1 step %c1 {
scf.for %i542 = %c0 to %c1 step %c1 {
scf.for %i543 = %c0 to %c1 step %c1 {
scf.for %i544 = %c0 to %c1 step %c1 {
scf.for %i545 = %c0 to %c1 step %c1 {
scf.for %i546 = %c0 to %c1 step %c1 {
scf.for %i547 = %c0 to %c1 step %c1 {
scf.for %i548 = %c0 to %c1 step %c1 {
scf.for %i549 = %c0 to %c1 step %c1 {
scf.for %i550 = %c0 to %c1 step %c1 {
scf.for %i551 = %c0 to %c1 step %c1 {
scf.for %i552 = %c0 to %c1 step %c1 {
scf.for %i553 = %c0 to %c1 step %c1 {
scf.for %i554 = %c0 to %c1 step %c1 {
scf.for %i555 = %c0 to %c1 step %c1 {
scf.for %i556 = %c0 to %c1 step %c1 {
scf.for %i557 = %c0 to %c1 step %c1 {
scf.for %i558 = %c0 to %c1 step %c1 {
scf.for %i559 = %c0 to %c1 step %c1 {
scf.for %i560 = %c0 to %c1 step %c1 {
scf.for %i561 = %c0 to %c1 step %c1 {
scf.for %i562 = %c0 to %c1 step %c1 {
scf.for %i563 = %c0 to %c1 step %c1 {
scf.for %i564 = %c0 to %c1 step %c1 {
scf.for %i565 = %c0 to %c1 step %c1 {
scf.for %i566 = %c0 to %c1 step %c1 {
scf.for %i567 = %c0 to %c1 step %c1 {
scf.for %i568 = %c0 to %c1 step %c1 {
scf.for %i569 = %c0 to %c1 step %c1 {
scf.for %i570 = %c0 to %c1 step %c1 {
scf.for %i571 = %c0 to %c1 step %c1 {
scf.for %i572 = %c0 to %c1 step %c1 {
scf.for %i573 = %c0 to %c1 step %c1 {
scf.for %i574 = %c0 to %c1 step %c1 {
scf.for %i575 = %c0 to %c1 step %c1 {
scf.for %i576 = %c0 to %c1 step %c1 {
scf.for %i577 = %c0 to %c1 step %c1 {
scf.for %i578 = %c0 to %c1 step %c1 {
scf.for %i579 = %c0 to %c1 step %c1 {
scf.for %i580 = %c0 to %c1 step %c1 {
scf.for %i581 = %c0 to %c1 step %c1 {
scf.for %i582 = %c0 to %c1 step %c1 {
scf.for %i583 = %c0 to %c1 step %c1 {
scf.for %i584 = %c0 to %c1 step %c1 {
scf.for %i585 = %c0 to %c1 step %c1 {
scf.for %i586 = %c0 to %c1 step %c1 {
scf.for %i587 = %c0 to %c1 step %c1 {
scf.for %i588 = %c0 to %c1 step %c1 {
scf.for %i589 = %c0 to %c1 step %c1 {
scf.for %i590 = %c0 to %c1 step %c1 {
scf.for %i591 = %c0 to %c1 step %c1 {
scf.for %i592 = %c0 to %c1 step %c1 {
scf.for %i593 = %c0 to %c1 step %c1 {
scf.for %i594 = %c0 to %c1 step %c1 {
scf.for %i595 = %c0 to %c1 step %c1 {
scf.for %i596 = %c0 to %c1 step %c1 {
scf.for %i597 = %c0 to %c1 step %c1 {
scf.for %i598 = %c0 to %c1 step %c1 {
scf.for %i599 = %c0 to %c1 step %c1 {
scf.for %i600 = %c0 to %c1 step %c1 {
scf.for %i601 = %c0 to %c1 step %c1 {
scf.for %i602 = %c0 to %c1 step %c1 {
scf.for %i603 = %c0 to %c1 step %c1 {
scf.for %i604 = %c0 to %c1 step %c1 {
scf.for %i605 = %c0 to %c1 step %c1 {
scf.for %i606 = %c0 to %c1 step %c1 {
scf.for %i607 = %c0 to %c1 step %c1 {
scf.for %i608 = %c0 to %c1 step %c1 {
scf.for %i609 = %c0 to %c1 step %c1 {
scf.for %i610 = %c0 to %c1 step %c1 {
scf.for %i611 = %c0 to %c1 step %c1 {
scf.for %i612 = %c0 to %c1 step %c1 {
scf.for %i613 = %c0 to %c1 step %c1 {
scf.for %i614 = %c0 to %c1 step %c1 {
scf.for %i615 = %c0 to %c1 step %c1 {
scf.for %i616 = %c0 to %c1 step %c1 {
scf.for %i617 = %c0 to %c1 step %c1 {
scf.for %i618 = %c0 to %c1 step %c1 {
scf.for %i619 = %c0 to %c1 step %c1 {
scf.for %i620 = %c0 to %c1 step %c1 {
scf.for %i621 = %c0 to %c1 step %c1 {
scf.for %i622 = %c0 to %c1 step %c1 {
scf.for %i623 = %c0 to %c1 step %c1 {
scf.for %i624 = %c0 to %c1 step %c1 {
scf.for %i625 = %c0 to %c1 step %c1 {
scf.for %i626 = %c0 to %c1 step %c1 {
scf.for %i627 = %c0 to %c1 step %c1 {
scf.for %i628 = %c0 to %c1 step %c1 {
scf.for %i629 = %c0 to %c1 step %c1 {
scf.for %i630 = %c0 to %c1 step %c1 {
scf.for %i631 = %c0 to %c1 step %c1 {
scf.for %i632 = %c0 to %c1 step %c1 {
scf.for %i633 = %c0 to %c1 step %c1 {
scf.for %i634 = %c0 to %c1 step %c1 {
scf.for %i635 = %c0 to %c1 step %c1 {
scf.for %i636 = %c0 to %c1 step %c1 {
scf.for %i637 = %c0 to %c1 step %c1 {
scf.for %i638 = %c0 to %c1 step %c1 {
scf.for %i639 = %c0 to %c1 step %c1 {
scf.for %i640 = %c0 to %c1 step %c1 {
scf.for %i641 = %c0 to %c1 step %c1 {
scf.for %i642 = %c0 to %c1 step %c1 {
scf.for %i643 = %c0 to %c1 step %c1 {
scf.for %i644 = %c0 to %c1 step %c1 {
scf.for %i645 = %c0 to %c1 step %c1 {
scf.for %i646 = %c0 to %c1 step %c1 {
scf.for %i647 = %c0 to %c1 step %c1 {
scf.for %i648 = %c0 to %c1 step %c1 {
scf.for %i649 = %c0 to %c1 step %c1 {
scf.for %i650 = %c0 to %c1 step %c1 {
scf.for %i651 = %c0 to %c1 step %c1 {
scf.for %i652 = %c0 to %c1 step %c1 {
scf.for %i653 = %c0 to %c1 step %c1 {
scf.for %i654 = %c0 to %c1 step %c1 {
scf.for %i655 = %c0 to %c1 step %c1 {
scf.for %i656 = %c0 to %c1 step %c1 {
scf.for %i657 = %c0 to %c1 step %c1 {
scf.for %i658 = %c0 to %c1 step %c1 {
scf.for %i659 = %c0 to %c1 step %c1 {
scf.for %i660 = %c0 to %c1 step %c1 {
scf.for %i661 = %c0 to %c1 step %c1 {
scf.for %i662 = %c0 to %c1 step %c1 {
scf.for %i663 = %c0 to %c1 step %c1 {
scf.for %i664 = %c0 to %c1 step %c1 {
scf.for %i665 = %c0 to %c1 step %c1 {
scf.for %i666 = %c0 to %c1 step %c1 {
scf.for %i667 = %c0 to %c1 step %c1 {
scf.for %i668 = %c0 to %c1 step %c1 {
scf.for %i669 = %c0 to %c1 step %c1 {
scf.for %i670 = %c0 to %c1 step %c1 {
scf.for %i671 = %c0 to %c1 step %c1 {
scf.for %i672 = %c0 to %c1 step %c1 {
scf.for %i673 = %c0 to %c1 step %c1 {
scf.for %i674 = %c0 to %c1 step %c1 {
scf.for %i675 = %c0 to %c1 step %c1 {
scf.for %i676 = %c0 to %c1 step %c1 {
scf.for %i677 = %c0 to %c1 step %c1 {
scf.for %i678 = %c0 to %c1 step %c1 {
scf.for %i679 = %c0 to %c1 step %c1 {
scf.for %i680 = %c0 to %c1 step %c1 {
scf.for %i681 = %c0 to %c1 step %c1 {
scf.for %i682 = %c0 to %c1 step %c1 {
scf.for %i683 = %c0 to %c1 step %c1 {
scf.for %i684 = %c0 to %c1 step %c1 {
scf.for %i685 = %c0 to %c1 step %c1 {
scf.for %i686 = %c0 to %c1 step %c1 {
scf.for %i687 = %c0 to %c1 step %c1 {
scf.for %i688 = %c0 to %c1 step %c1 {
scf.for %i689 = %c0 to %c1 step %c1 {
scf.for %i690 = %c0 to %c1 step %c1 {
scf.for %i691 = %c0 to %c1 step %c1 {
scf.for %i692 = %c0 to %c1 step %c1 {
scf.for %i693 = %c0 to %c1 step %c1 {
scf.for %i694 = %c0 to %c1 step %c1 {
scf.for %i695 = %c0 to %c1 step %c1 {
scf.for %i696 = %c0 to %c1 step %c1 {
scf.for %i697 = %c0 to %c1 step %c1 {
scf.for %i698 = %c0 to %c1 step %c1 {
scf.for %i699 = %c0 to %c1 step %c1 {
scf.for %i700 = %c0 to %c1 step %c1 {
scf.for %i701 = %c0 to %c1 step %c1 {
scf.for %i702 = %c0 to %c1 step %c1 {
scf.for %i703 = %c0 to %c1 step %c1 {
scf.for %i704 = %c0 to %c1 step %c1 {
scf.for %i705 = %c0 to %c1 step %c1 {
scf.for %i706 = %c0 to %c1 step %c1 {
scf.for %i707 = %c0 to %c1 step %c1 {
scf.for %i708 = %c0 to %c1 step %c1 {
scf.for %i709 = %c0 to %c1 step %c1 {
scf.for %i710 = %c0 to %c1 step %c1 {
scf.for %i711 = %c0 to %c1 step %c1 {
scf.for %i712 = %c0 to %c1 step %c1 {
scf.for %i713 = %c0 to %c1 step %c1 {
scf.for %i714 = %c0 to %c1 step %c1 {
scf.for %i715 = %c0 to %c1 step %c1 {
scf.for %i716 = %c0 to %c1 step %c1 {
scf.for %i717 = %c0 to %c1 step %c1 {
scf.for %i718 = %c0 to %c1 step %c1 {
scf.for %i719 = %c0 to %c1 step %c1 {
scf.for %i720 = %c0 to %c1 step %c1 {
scf.for %i721 = %c0 to %c1 step %c1 {
scf.for %i722 = %c0 to %c1 step %c1 {
scf.for %i723 = %c0 to %c1 step %c1 {
scf.for %i724 = %c0 to %c1 step %c1 {
scf.for %i725 = %c0 to %c1 step %c1 {
scf.for %i726 = %c0 to %c1 step %c1 {
scf.for %i727 = %c0 to %c1 step %c1 {
scf.for %i728 = %c0 to %c1 step %c1 {
scf.for %i729 = %c0 to %c1 step %c1 {
scf.for %i730 = %c0 to %c1 step %c1 {
scf.for %i731 = %c0 to %c1 step %c1 {
scf.for %i732 = %c0 to %c1 step %c1 {
scf.for %i733 = %c0 to %c1 step %c1 {
scf.for %i734 = %c0 to %c1 step %c1 {
scf.for %i735 = %c0 to %c1 step %c1 {
scf.for %i736 = %c0 to %c1 step %c1 {
scf.for %i737 = %c0 to %c1 step %c1 {
scf.for %i738 = %c0 to %c1 step %c1 {
scf.for %i739 = %c0 to %c1 step %c1 {
scf.for %i740 = %c0 to %c1 step %c1 {
scf.for %i741 = %c0 to %c1 step %c1 {
scf.for %i742 = %c0 to %c1 step %c1 {
scf.for %i743 = %c0 to %c1 step %c1 {
scf.for %i744 = %c0 to %c1 step %c1 {
scf.for %i745 = %c0 to %c1 step %c1 {
scf.for %i746 = %c0 to %c1 step %c1 {
scf.for %i747 = %c0 to %c1 step %c1 {
scf.for %i748 = %c0 to %c1 step %c1 {
scf.for %i749 = %c0 to %c1 step %c1 {
scf.for %i750 = %c0 to %c1 step %c1 {
scf.for %i751 = %c0 to %c1 step %c1 {
scf.for %i752 = %c0 to %c1 step %c1 {
scf.for %i753 = %c0 to %c1 step %c1 {
scf.for %i754 = %c0 to %c1 step %c1 {
scf.for %i755 = %c0 to %c1 step %c1 {
scf.for %i756 = %c0 to %c1 step %c1 {
scf.for %i757 = %c0 to %c1 step %c1 {
scf.for %i758 = %c0 to %c1 step %c1 {
scf.for %i759 = %c0 to %c1 step %c1 {
scf.for %i760 = %c0 to %c1 step %c1 {
scf.for %i761 = %c0 to %c1 step %c1 {
scf.for %i762 = %c0 to %c1 step %c1 {
scf.for %i763 = %c0 to %c1 step %c1 {
scf.for %i764 = %c0 to %c1 step %c1 {
scf.for %i765 = %c0 to %c1 step %c1 {
scf.for %i766 = %c0 to %c1 step %c1 {
scf.for %i767 = %c0 to %c1 step %c1 {
scf.for %i768 = %c0 to %c1 step %c1 {
scf.for %i769 = %c0 to %c1 step %c1 {
scf.for %i770 = %c0 to %c1 step %c1 {
scf.for %i771 = %c0 to %c1 step %c1 {
scf.for %i772 = %c0 to %c1 step %c1 {
scf.for %i773 = %c0 to %c1 step %c1 {
scf.for %i774 = %c0 to %c1 step %c1 {
scf.for %i775 = %c0 to %c1 step %c1 {
scf.for %i776 = %c0 to %c1 step %c1 {
scf.for %i777 = %c0 to %c1 step %c1 {
scf.for %i778 = %c0 to %c1 step %c1 {
scf.for %i779 = %c0 to %c1 step %c1 {
scf.for %i780 = %c0 to %c1 step %c1 {
scf.for %i781 = %c0 to %c1 step %c1 {
scf.for %i782 = %c0 to %c1 step %c1 {
scf.for %i783 = %c0 to %c1 step %c1 {
scf.for %i784 = %c0 to %c1 step %c1 {
scf.for %i785 = %c0 to %c1 step %c1 {
scf.for %i786 = %c0 to %c1 step %c1 {
scf.for %i787 = %c0 to %c1 step %c1 {
scf.for %i788 = %c0 to %c1 step %c1 {
scf.for %i789 = %c0 to %c1 step %c1 {
scf.for %i790 = %c0 to %c1 step %c1 {
scf.for %i791 = %c0 to %c1 step %c1 {
scf.for %i792 = %c0 to %c1 step %c1 {
scf.for %i793 = %c0 to %c1 step %c1 {
scf.for %i794 = %c0 to %c1 step %c1 {
scf.for %i795 = %c0 to %c1 step %c1 {
scf.for %i796 = %c0 to %c1 step %c1 {
scf.for %i797 = %c0 to %c1 step %c1 {
scf.for %i798 = %c0 to %c1 step %c1 {
scf.for %i799 = %c0 to %c1 step %c1 {
scf.for %i800 = %c0 to %c1 step %c1 {
scf.for %i801 = %c0 to %c1 step %c1 {
scf.for %i802 = %c0 to %c1 step %c1 {
scf.for %i803 = %c0 to %c1 step %c1 {
scf.for %i804 = %c0 to %c1 step %c1 {
scf.for %i805 = %c0 to %c1 step %c1 {
scf.for %i806 = %c0 to %c1 step %c1 {
scf.for %i807 = %c0 to %c1 step %c1 {
scf.for %i808 = %c0 to %c1 step %c1 {
scf.for %i809 = %c0 to %c1 step %c1 {
scf.for %i810 = %c0 to %c1 step %c1 {
scf.for %i811 = %c0 to %c1 step %c1 {
scf.for %i812 = %c0 to %c1 step %c1 {
scf.for %i813 = %c0 to %c1 step %c1 {
scf.for %i814 = %c0 to %c1 step %c1 {
scf.for %i815 = %c0 to %c1 step %c1 {
scf.for %i816 = %c0 to %c1 step %c1 {
scf.for %i817 = %c0 to %c1 step %c1 {
scf.for %i818 = %c0 to %c1 step %c1 {
scf.for %i819 = %c0 to %c1 step %c1 {
scf.for %i820 = %c0 to %c1 step %c1 {
scf.for %i821 = %c0 to %c1 step %c1 {
scf.for %i822 = %c0 to %c1 step %c1 {
scf.for %i823 = %c0 to %c1 step %c1 {
scf.for %i824 = %c0 to %c1 step %c1 {
scf.for %i825 = %c0 to %c1 step %c1 {
scf.for %i826 = %c0 to %c1 step %c1 {
scf.for %i827 = %c0 to %c1 step %c1 {
scf.for %i828 = %c0 to %c1 step %c1 {
scf.for %i829 = %c0 to %c1 step %c1 {
scf.for %i830 = %c0 to %c1 step %c1 {
scf.for %i831 = %c0 to %c1 step %c1 {
scf.for %i832 = %c0 to %c1 step %c1 {
scf.for %i833 = %c0 to %c1 step %c1 {
scf.for %i834 = %c0 to %c1 step %c1 {
scf.for %i835 = %c0 to %c1 step %c1 {
scf.for %i836 = %c0 to %c1 step %c1 {
scf.for %i837 = %c0 to %c1 step %c1 {
scf.for %i838 = %c0 to %c1 step %c1 {
scf.for %i839 = %c0 to %c1 step %c1 {
scf.for %i840 = %c0 to %c1 step %c1 {
scf.for %i841 = %c0 to %c1 step %c1 {
scf.for %i842 = %c0 to %c1 step %c1 {
scf.for %i843 = %c0 to %c1 step %c1 {
scf.for %i844 = %c0 to %c1 step %c1 {
scf.for %i845 = %c0 to %c1 step %c1 {
scf.for %i846 = %c0 to %c1 step %c1 {
scf.for %i847 = %c0 to %c1 step %c1 {
scf.for %i848 = %c0 to %c1 step %c1 {
scf.for %i849 = %c0 to %c1 step %c1 {
scf.for %i850 = %c0 to %c1 step %c1 {
scf.for %i851 = %c0 to %c1 step %c1 {
scf.for %i852 = %c0 to %c1 step %c1 {
scf.for %i853 = %c0 to %c1 step %c1 {
scf.for %i854 = %c0 to %c1 step %c1 {
scf.for %i855 = %c0 to %c1 step %c1 {
scf.for %i856 = %c0 to %c1 step %c1 {
scf.for %i857 = %c0 to %c1 step %c1 {
scf.for %i858 = %c0 to %c1 step %c1 {
scf.for %i859 = %c0 to %c1 step %c1 {
scf.for %i860 = %c0 to %c1 step %c1 {
scf.for %i861 = %c0 to %c1 step %c1 {
scf.for %i862 = %c0 to %c1 step %c1 {
scf.for %i863 = %c0 to %c1 step %c1 {
scf.for %i864 = %c0 to %c1 step %c1 {
scf.for %i865 = %c0 to %c1 step %c1 {
scf.for %i866 = %c0 to %c1 step %c1 {
scf.for %i867 = %c0 to %c1 step %c1 {
scf.for %i868 = %c0 to %c1 step %c1 {
scf.for %i869 = %c0 to %c1 step %c1 {
scf.for %i870 = %c0 to %c1 step %c1 {
scf.for %i871 = %c0 to %c1 step %c1 {
scf.for %i872 = %c0 to %c1 step %c1 {
scf.for %i873 = %c0 to %c1 step %c1 {
scf.for %i874 = %c0 to %c1 step %c1 {
scf.for %i875 = %c0 to %c1 step %c1 {
scf.for %i876 = %c0 to %c1 step %c1 {
scf.for %i877 = %c0 to %c1 step %c1 {
scf.for %i878 = %c0 to %c1 step %c1 {
scf.for %i879 = %c0 to %c1 step %c1 {
scf.for %i880 = %c0 to %c1 step %c1 {
scf.for %i881 = %c0 to %c1 step %c1 {
scf.for %i882 = %c0 to %c1 step %c1 {
scf.for %i883 = %c0 to %c1 step %c1 {
scf.for %i884 = %c0 to %c1 step %c1 {
scf.for %i885 = %c0 to %c1 step %c1 {
scf.for %i886 = %c0 to %c1 step %c1 {
scf.for %i887 = %c0 to %c1 step %c1 {
scf.for %i888 = %c0 to %c1 step %c1 {
scf.for %i889 = %c0 to %c1 step %c1 {
scf.for %i890 = %c0 to %c1 step %c1 {
scf.for %i891 = %c0 to %c1 step %c1 {
scf.for %i892 = %c0 to %c1 step %c1 {
scf.for %i893 = %c0 to %c1 step %c1 {
scf.for %i894 = %c0 to %c1 step %c1 {
scf.for %i895 = %c0 to %c1 step %c1 {
scf.for %i896 = %c0 to %c1 step %c1 {
scf.for %i897 = %c0 to %c1 step %c1 {
scf.for %i898 = %c0 to %c1 step %c1 {
scf.for %i899 = %c0 to %c1 step %c1 {
scf.for %i900 = %c0 to %c1 step %c1 {
scf.for %i901 = %c0 to %c1 step %c1 {
scf.for %i902 = %c0 to %c1 step %c1 {
scf.for %i903 = %c0 to %c1 step %c1 {
scf.for %i904 = %c0 to %c1 step %c1 {
scf.for %i905 = %c0 to %c1 step %c1 {
scf.for %i906 = %c0 to %c1 step %c1 {
scf.for %i907 = %c0 to %c1 step %c1 {
scf.for %i908 = %c0 to %c1 step %c1 {
scf.for %i909 = %c0 to %c1 step %c1 {
scf.for %i910 = %c0 to %c1 step %c1 {
scf.for %i911 = %c0 to %c1 step %c1 {
scf.for %i912 = %c0 to %c1 step %c1 {
scf.for %i913 = %c0 to %c1 step %c1 {
scf.for %i914 = %c0 to %c1 step %c1 {
scf.for %i915 = %c0 to %c1 step %c1 {
scf.for %i916 = %c0 to %c1 step %c1 {
scf.for %i917 = %c0 to %c1 step %c1 {
scf.for %i918 = %c0 to %c1 step %c1 {
scf.for %i919 = %c0 to %c1 step %c1 {
scf.for %i920 = %c0 to %c1 step %c1 {
scf.for %i921 = %c0 to %c1 step %c1 {
scf.for %i922 = %c0 to %c1 step %c1 {
scf.for %i923 = %c0 to %c1 step %c1 {
scf.for %i924 = %c0 to %c1 step %c1 {
scf.for %i925 = %c0 to %c1 step %c1 {
scf.for %i926 = %c0 to %c1 step %c1 {
scf.for %i927 = %c0 to %c1 step %c1 {
scf.for %i928 = %c0 to %c1 step %c1 {
scf.for %i929 = %c0 to %c1 step %c1 {
scf.for %i930 = %c0 to %c1 step %c1 {
scf.for %i931 = %c0 to %c1 step %c1 {
scf.for %i932 = %c0 to %c1 step %c1 {
scf.for %i933 = %c0 to %c1 step %c1 {
scf.for %i934 = %c0 to %c1 step %c1 {
scf.for %i935 = %c0 to %c1 step %c1 {
scf.for %i936 = %c0 to %c1 step %c1 {
scf.for %i937 = %c0 to %c1 step %c1 {
scf.for %i938 = %c0 to %c1 step %c1 {
scf.for %i939 = %c0 to %c1 step %c1 {
scf.for %i940 = %c0 to %c1 step %c1 {
scf.for %i941 = %c0 to %c1 step %c1 {
scf.for %i942 = %c0 to %c1 step %c1 {
scf.for %i943 = %c0 to %c1 step %c1 {
scf.for %i944 = %c0 to %c1 step %c1 {
scf.for %i945 = %c0 to %c1 step %c1 {
scf.for %i946 = %c0 to %c1 step %c1 {
scf.for %i947 = %c0 to %c1 step %c1 {
scf.for %i948 = %c0 to %c1 step %c1 {
scf.for %i949 = %c0 to %c1 step %c1 {
scf.for %i950 = %c0 to %c1 step %c1 {
scf.for %i951 = %c0 to %c1 step %c1 {
scf.for %i952 = %c0 to %c1 step %c1 {
scf.for %i953 = %c0 to %c1 step %c1 {
scf.for %i954 = %c0 to %c1 step %c1 {
scf.for %i955 = %c0 to %c1 step %c1 {
scf.for %i956 = %c0 to %c1 step %c1 {
scf.for %i957 = %c0 to %c1 step %c1 {
scf.for %i958 = %c0 to %c1 step %c1 {
scf.for %i959 = %c0 to %c1 step %c1 {
scf.for %i960 = %c0 to %c1 step %c1 {
scf.for %i961 = %c0 to %c1 step %c1 {
scf.for %i962 = %c0 to %c1 step %c1 {
scf.for %i963 = %c0 to %c1 step %c1 {
scf.for %i964 = %c0 to %c1 step %c1 {
scf.for %i965 = %c0 to %c1 step %c1 {
scf.for %i966 = %c0 to %c1 step %c1 {
scf.for %i967 = %c0 to %c1 step %c1 {
scf.for %i968 = %c0 to %c1 step %c1 {
scf.for %i969 = %c0 to %c1 step %c1 {
scf.for %i970 = %c0 to %c1 step %c1 {
scf.for %i971 = %c0 to %c1 step %c1 {
scf.for %i972 = %c0 to %c1 step %c1 {
scf.for %i973 = %c0 to %c1 step %c1 {
scf.for %i974 = %c0 to %c1 step %c1 {
scf.for %i975 = %c0 to %c1 step %c1 {
scf.for %i976 = %c0 to %c1 step %c1 {
scf.for %i977 = %c0 to %c1 step %c1 {
scf.for %i978 = %c0 to %c1 step %c1 {
scf.for %i979 = %c0 to %c1 step %c1 {
scf.for %i980 = %c0 to %c1 step %c1 {
scf.for %i981 = %c0 to %c1 step %c1 {
scf.for %i982 = %c0 to %c1 step %c1 {
scf.for %i983 = %c0 to %c1 step %c1 {
scf.for %i984 = %c0 to %c1 step %c1 {
scf.for %i985 = %c0 to %c1 step %c1 {
scf.for %i986 = %c0 to %c1 step %c1 {
scf.for %i987 = %c0 to %c1 step %c1 {
scf.for %i988 = %c0 to %c1 step %c1 {
scf.for %i989 = %c0 to %c1 step %c1 {
scf.for %i990 = %c0 to %c1 step %c1 {
scf.for %i991 = %c0 to %c1 step %c1 {
scf.for %i992 = %c0 to %c1 step %c1 {
scf.for %i993 = %c0 to %c1 step %c1 {
scf.for %i994 = %c0 to %c1 step %c1 {
scf.for %i995 = %c0 to %c1 step %c1 {
scf.for %i996 = %c0 to %c1 step %c1 {
scf.for %i997 = %c0 to %c1 step %c1 {
scf.for %i998 = %c0 to %c1 step %c1 {
scf.for %i999 = %c0 to %c1 step %c1 {
scf.for %i1000 = %c0 to %c1 step %c1 {
scf.for %i1001 = %c0 to %c1 step %c1 {
scf.for %i1002 = %c0 to %c1 step %c1 {
scf.for %i1003 = %c0 to %c1 step %c1 {
scf.for %i1004 = %c0 to %c1 step %c1 {
scf.for %i1005 = %c0 to %c1 step %c1 {
scf.for %i1006 = %c0 to %c1 step %c1 {
scf.for %i1007 = %c0 to %c1 step %c1 {
scf.for %i1008 = %c0 to %c1 step %c1 {
scf.for %i1009 = %c0 to %c1 step %c1 {
scf.for %i1010 = %c0 to %c1 step %c1 {
scf.for %i1011 = %c0 to %c1 step %c1 {
scf.for %i1012 = %c0 to %c1 step %c1 {
scf.for %i1013 = %c0 to %c1 step %c1 {
scf.for %i1014 = %c0 to %c1 step %c1 {
scf.for %i1015 = %c0 to %c1 step %c1 {
scf.for %i1016 = %c0 to %c1 step %c1 {
scf.for %i1017 = %c0 to %c1 step %c1 {
scf.for %i1018 = %c0 to %c1 step %c1 {
scf.for %i1019 = %c0 to %c1 step %c1 {
scf.for %i1020 = %c0 to %c1 step %c1 {
scf.for %i1021 = %c0 to %c1 step %c1 {
scf.for %i1022 = %c0 to %c1 step %c1 {
scf.for %i1023 = %c0 to %c1 step %c1 {
scf.for %i1024 = %c0 to %c1 step %c1 {
scf.for %i1025 = %c0 to %c1 step %c1 {
scf.for %i1026 = %c0 to %c1 step %c1 {
scf.for %i1027 = %c0 to %c1 step %c1 {
scf.for %i1028 = %c0 to %c1 step %c1 {
scf.for %i1029 = %c0 to %c1 step %c1 {
scf.for %i1030 = %c0 to %c1 step %c1 {
scf.for %i1031 = %c0 to %c1 step %c1 {
scf.for %i1032 = %c0 to %c1 step %c1 {
scf.for %i1033 = %c0 to %c1 step %c1 {
scf.for %i1034 = %c0 to %c1 step %c1 {
scf.for %i1035 = %c0 to %c1 step %c1 {
scf.for %i1036 = %c0 to %c1 step %c1 {
scf.for %i1037 = %c0 to %c1 step %c1 {
scf.for %i1038 = %c0 to %c1 step %c1 {
scf.for %i1039 = %c0 to %c1 step %c1 {
scf.for %i1040 = %c0 to %c1 step %c1 {
scf.for %i1041 = %c0 to %c1 step %c1 {
scf.for %i1042 = %c0 to %c1 step %c1 {
scf.for %i1043 = %c0 to %c1 step %c1 {
scf.for %i1044 = %c0 to %c1 step %c1 {
scf.for %i1045 = %c0 to %c1 step %c1 {
scf.for %i1046 = %c0 to %c1 step %c1 {
scf.for %i1047 = %c0 to %c1 step %c1 {
scf.for %i1048 = %c0 to %c1 step %c1 {
scf.for %i1049 = %c0 to %c1 step %c1 {
scf.for %i1050 = %c0 to %c1 step %c1 {
scf.for %i1051 = %c0 to %c1 step %c1 {
scf.for %i1052 = %c0 to %c1 step %c1 {
scf.for %i1053 = %c0 to %c1 step %c1 {
scf.for %i1054 = %c0 to %c1 step %c1 {
scf.for %i1055 = %c0 to %c1 step %c1 {
scf.for %i1056 = %c0 to %c1 step %c1 {
scf.for %i1057 = %c0 to %c1 step %c1 {
scf.for %i1058 = %c0 to %c1 step %c1 {
scf.for %i1059 = %c0 to %c1 step %c1 {
scf.for %i1060 = %c0 to %c1 step %c1 {
scf.for %i1061 = %c0 to %c1 step %c1 {
scf.for %i1062 = %c0 to %c1 step %c1 {
scf.for %i1063 = %c0 to %c1 step %c1 {
scf.for %i1064 = %c0 to %c1 step %c1 {
scf.for %i1065 = %c0 to %c1 step %c1 {
scf.for %i1066 = %c0 to %c1 step %c1 {
scf.for %i1067 = %c0 to %c1 step %c1 {
scf.for %i1068 = %c0 to %c1 step %c1 {
scf.for %i1069 = %c0 to %c1 step %c1 {
scf.for %i1070 = %c0 to %c1 step %c1 {
scf.for %i1071 = %c0 to %c1 step %c1 {
scf.for %i1072 = %c0 to %c1 step %c1 {
scf.for %i1073 = %c0 to %c1 step %c1 {
scf.for %i1074 = %c0 to %c1 step %c1 {
scf.for %i1075 = %c0 to %c1 step %c1 {
scf.for %i1076 = %c0 to %c1 step %c1 {
scf.for %i1077 = %c0 to %c1 step %c1 {
scf.for %i1078 = %c0 to %c1 step %c1 {
scf.for %i1079 = %c0 to %c1 step %c1 {
scf.for %i1080 = %c0 to %c1 step %c1 {
scf.for %i1081 = %c0 to %c1 step %c1 {
scf.for %i1082 = %c0 to %c1 step %c1 {
scf.for %i1083 = %c0 to %c1 step %c1 {
scf.for %i1084 = %c0 to %c1 step %c1 {
scf.for %i1085 = %c0 to %c1 step %c1 {
scf.for %i1086 = %c0 to %c1 step %c1 {
scf.for %i1087 = %c0 to %c1 step %c1 {
scf.for %i1088 = %c0 to %c1 step %c1 {
scf.for %i1089 = %c0 to %c1 step %c1 {
scf.for %i1090 = %c0 to %c1 step %c1 {
scf.for %i1091 = %c0 to %c1 step %c1 {
scf.for %i1092 = %c0 to %c1 step %c1 {
scf.for %i1093 = %c0 to %c1 step %c1 {
scf.for %i1094 = %c0 to %c1 step %c1 {
scf.for %i1095 = %c0 to %c1 step %c1 {
scf.for %i1096 = %c0 to %c1 step %c1 {
scf.for %i1097 = %c0 to %c1 step %c1 {
scf.for %i1098 = %c0 to %c1 step %c1 {
scf.for %i1099 = %c0 to %c1 step %c1 {
scf.for %i1100 = %c0 to %c1 step %c1 {
scf.for %i1101 = %c0 to %c1 step %c1 {
scf.for %i1102 = %c0 to %c1 step %c1 {
scf.for %i1103 = %c0 to %c1 step %c1 {
scf.for %i1104 = %c0 to %c1 step %c1 {
scf.for %i1105 = %c0 to %c1 step %c1 {
scf.for %i1106 = %c0 to %c1 step %c1 {
scf.for %i1107 = %c0 to %c1 step %c1 {
scf.for %i1108 = %c0 to %c1 step %c1 {
scf.for %i1109 = %c0 to %c1 step %c1 {
scf.for %i1110 = %c0 to %c1 step %c1 {
scf.for %i1111 = %c0 to %c1 step %c1 {
scf.for %i1112 = %c0 to %c1 step %c1 {
scf.for %i1113 = %c0 to %c1 step %c1 {
scf.for %i1114 = %c0 to %c1 step %c1 {
scf.for %i1115 = %c0 to %c1 step %c1 {
scf.for %i1116 = %c0 to %c1 step %c1 {
scf.for %i1117 = %c0 to %c1 step %c1 {
scf.for %i1118 = %c0 to %c1 step %c1 {
scf.for %i1119 = %c0 to %c1 step %c1 {
scf.for %i1120 = %c0 to %c1 step %c1 {
scf.for %i1121 = %c0 to %c1 step %c1 {
scf.for %i1122 = %c0 to %c1 step %c1 {
scf.for %i1123 = %c0 to %c1 step %c1 {
scf.for %i1124 = %c0 to %c1 step %c1 {
scf.for %i1125 = %c0 to %c1 step %c1 {
scf.for %i1126 = %c0 to %c1 step %c1 {
scf.for %i1127 = %c0 to %c1 step %c1 {
scf.for %i1128 = %c0 to %c1 step %c1 {
scf.for %i1129 = %c0 to %c1 step %c1 {
scf.for %i1130 = %c0 to %c1 step %c1 {
scf.for %i1131 = %c0 to %c1 step %c1 {
scf.for %i1132 = %c0 to %c1 step %c1 {
scf.for %i1133 = %c0 to %c1 step %c1 {
scf.for %i1134 = %c0 to %c1 step %c1 {
scf.for %i1135 = %c0 to %c1 step %c1 {
scf.for %i1136 = %c0 to %c1 step %c1 {
scf.for %i1137 = %c0 to %c1 step %c1 {
scf.for %i1138 = %c0 to %c1 step %c1 {
scf.for %i1139 = %c0 to %c1 step %c1 {
scf.for %i1140 = %c0 to %c1 step %c1 {
scf.for %i1141 = %c0 to %c1 step %c1 {
scf.for %i1142 = %c0 to %c1 step %c1 {
scf.for %i1143 = %c0 to %c1 step %c1 {
scf.for %i1144 = %c0 to %c1 step %c1 {
scf.for %i1145 = %c0 to %c1 step %c1 {
scf.for %i1146 = %c0 to %c1 step %c1 {
scf.for %i1147 = %c0 to %c1 step %c1 {
scf.for %i1148 = %c0 to %c1 step %c1 {
scf.for %i1149 = %c0 to %c1 step %c1 {
scf.for %i1150 = %c0 to %c1 step %c1 {
scf.for %i1151 = %c0 to %c1 step %c1 {
scf.for %i1152 = %c0 to %c1 step %c1 {
scf.for %i1153 = %c0 to %c1 step %c1 {
scf.for %i1154 = %c0 to %c1 step %c1 {
scf.for %i1155 = %c0 to %c1 step %c1 {
scf.for %i1156 = %c0 to %c1 step %c1 {
scf.for %i1157 = %c0 to %c1 step %c1 {
scf.for %i1158 = %c0 to %c1 step %c1 {
scf.for %i1159 = %c0 to %c1 step %c1 {
scf.for %i1160 = %c0 to %c1 step %c1 {
scf.for %i1161 = %c0 to %c1 step %c1 {
scf.for %i1162 = %c0 to %c1 step %c1 {
scf.for %i1163 = %c0 to %c1 step %c1 {
scf.for %i1164 = %c0 to %c1 step %c1 {
scf.for %i1165 = %c0 to %c1 step %c1 {
scf.for %i1166 = %c0 to %c1 step %c1 {
scf.for %i1167 = %c0 to %c1 step %c1 {
scf.for %i1168 = %c0 to %c1 step %c1 {
scf.for %i1169 = %c0 to %c1 step %c1 {
scf.for %i1170 = %c0 to %c1 step %c1 {
scf.for %i1171 = %c0 to %c1 step %c1 {
scf.for %i1172 = %c0 to %c1 step %c1 {
scf.for %i1173 = %c0 to %c1 step %c1 {
scf.for %i1174 = %c0 to %c1 step %c1 {
scf.for %i1175 = %c0 to %c1 step %c1 {
scf.for %i1176 = %c0 to %c1 step %c1 {
scf.for %i1177 = %c0 to %c1 step %c1 {
scf.for %i1178 = %c0 to %c1 step %c1 {
scf.for %i1179 = %c0 to %c1 step %c1 {
scf.for %i1180 = %c0 to %c1 step %c1 {
scf.for %i1181 = %c0 to %c1 step %c1 {
scf.for %i1182 = %c0 to %c1 step %c1 {
scf.for %i1183 = %c0 to %c1 step %c1 {
scf.for %i1184 = %c0 to %c1 step %c1 {
scf.for %i1185 = %c0 to %c1 step %c1 {
scf.for %i1186 = %c0 to %c1 step %c1 {
scf.for %i1187 = %c0 to %c1 step %c1 {
scf.for %i1188 = %c0 to %c1 step %c1 {
scf.for %i1189 = %c0 to %c1 step %c1 {
scf.for %i1190 = %c0 to %c1 step %c1 {
scf.for %i1191 = %c0 to %c1 step %c1 {
scf.for %i1192 = %c0 to %c1 step %c1 {
scf.for %i1193 = %c0 to %c1 step %c1 {
scf.for %i1194 = %c0 to %c1 step %c1 {
scf.for %i1195 = %c0 to %c1 step %c1 {
scf.for %i1196 = %c0 to %c1 step %c1 {
scf.for %i1197 = %c0 to %c1 step %c1 {
scf.for %i1198 = %c0 to %c1 step %c1 {
scf.for %i1199 = %c0 to %c1 step %c1 {
scf.for %i1200 = %c0 to %c1 step %c1 {
scf.for %i1201 = %c0 to %c1 step %c1 {
scf.for %i1202 = %c0 to %c1 step %c1 {
scf.for %i1203 = %c0 to %c1 step %c1 {
scf.for %i1204 = %c0 to %c1 step %c1 {
scf.for %i1205 = %c0 to %c1 step %c1 {
scf.for %i1206 = %c0 to %c1 step %c1 {
scf.for %i1207 = %c0 to %c1 step %c1 {
scf.for %i1208 = %c0 to %c1 step %c1 {
scf.for %i1209 = %c0 to %c1 step %c1 {
scf.for %i1210 = %c0 to %c1 step %c1 {
scf.for %i1211 = %c0 to %c1 step %c1 {
scf.for %i1212 = %c0 to %c1 step %c1 {
scf.for %i1213 = %c0 to %c1 step %c1 {
scf.for %i1214 = %c0 to %c1 step %c1 {
scf.for %i1215 = %c0 to %c1 step %c1 {
scf.for %i1216 = %c0 to %c1 step %c1 {
scf.for %i1217 = %c0 to %c1 step %c1 {
scf.for %i1218 = %c0 to %c1 step %c1 {
scf.for %i1219 = %c0 to %c1 step %c1 {
scf.for %i1220 = %c0 to %c1 step %c1 {
scf.for %i1221 = %c0 to %c1 step %c1 {
scf.for %i1222 = %c0 to %c1 step %c1 {
scf.for %i1223 = %c0 to %c1 step %c1 {
scf.for %i1224 = %c0 to %c1 step %c1 {
scf.for %i1225 = %c0 to %c1 step %c1 {
scf.for %i1226 = %c0 to %c1 step %c1 {
scf.for %i1227 = %c0 to %c1 step %c1 {
scf.for %i1228 = %c0 to %c1 step %c1 {
scf.for %i1229 = %c0 to %c1 step %c1 {
scf.for %i1230 = %c0 to %c1 step %c1 {
scf.for %i1231 = %c0 to %c1 step %c1 {
scf.for %i1232 = %c0 to %c1 step %c1 {
scf.for %i1233 = %c0 to %c1 step %c1 {
scf.for %i1234 = %c0 to %c1 step %c1 {
scf.for %i1235 = %c0 to %c1 step %c1 {
scf.for %i1236 = %c0 to %c1 step %c1 {
scf.for %i1237 = %c0 to %c1 step %c1 {
scf.for %i1238 = %c0 to %c1 step %c1 {
scf.for %i1239 = %c0 to %c1 step %c1 {
scf.for %i1240 = %c0 to %c1 step %c1 {
scf.for %i1241 = %c0 to %c1 step %c1 {
scf.for %i1242 = %c0 to %c1 step %c1 {
scf.for %i1243 = %c0 to %c1 step %c1 {
scf.for %i1244 = %c0 to %c1 step %c1 {
scf.for %i1245 = %c0 to %c1 step %c1 {
scf.for %i1246 = %c0 to %c1 step %c1 {
scf.for %i1247 = %c0 to %c1 step %c1 {
scf.for %i1248 = %c0 to %c1 step %c1 {
scf.for %i1249 = %c0 to %c1 step %c1 {
scf.for %i1250 = %c0 to %c1 step %c1 {
scf.for %i1251 = %c0 to %c1 step %c1 {
scf.for %i1252 = %c0 to %c1 step %c1 {
scf.for %i1253 = %c0 to %c1 step %c1 {
scf.for %i1254 = %c0 to %c1 step %c1 {
scf.for %i1255 = %c0 to %c1 step %c1 {
scf.for %i1256 = %c0 to %c1 step %c1 {
scf.for %i1257 = %c0 to %c1 step %c1 {
scf.for %i1258 = %c0 to %c1 step %c1 {
scf.for %i1259 = %c0 to %c1 step %c1 {
scf.for %i1260 = %c0 to %c1 step %c1 {
scf.for %i1261 = %c0 to %c1 step %c1 {
scf.for %i1262 = %c0 to %c1 step %c1 {
scf.for %i1263 = %c0 to %c1 step %c1 {
scf.for %i1264 = %c0 to %c1 step %c1 {
scf.for %i1265 = %c0 to %c1 step %c1 {
scf.for %i1266 = %c0 to %c1 step %c1 {
scf.for %i1267 = %c0 to %c1 step %c1 {
scf.for %i1268 = %c0 to %c1 step %c1 {
scf.for %i1269 = %c0 to %c1 step %c1 {
scf.for %i1270 = %c0 to %c1 step %c1 {
scf.for %i1271 = %c0 to %c1 step %c1 {
scf.for %i1272 = %c0 to %c1 step %c1 {
scf.for %i1273 = %c0 to %c1 step %c1 {
scf.for %i1274 = %c0 to %c1 step %c1 {
scf.for %i1275 = %c0 to %c1 step %c1 {
scf.for %i1276 = %c0 to %c1 step %c1 {
scf.for %i1277 = %c0 to %c1 step %c1 {
scf.for %i1278 = %c0 to %c1 step %c1 {
scf.for %i1279 = %c0 to %c1 step %c1 {
scf.for %i1280 = %c0 to %c1 step %c1 {
scf.for %i1281 = %c0 to %c1 step %c1 {
scf.for %i1282 = %c0 to %c1 step %c1 {
scf.for %i1283 = %c0 to %c1 step %c1 {
scf.for %i1284 = %c0 to %c1 step %c1 {
scf.for %i1285 = %c0 to %c1 step %c1 {
scf.for %i1286 = %c0 to %c1 step %c1 {
scf.for %i1287 = %c0 to %c1 step %c1 {
scf.for %i1288 = %c0 to %c1 step %c1 {
scf.for %i1289 = %c0 to %c1 step %c1 {
scf.for %i1290 = %c0 to %c1 step %c1 {
scf.for %i1291 = %c0 to %c1 step %c1 {
scf.for %i1292 = %c0 to %c1 step %c1 {
scf.for %i1293 = %c0 to %c1 step %c1 {
scf.for %i1294 = %c0 to %c1 step %c1 {
scf.for %i1295 = %c0 to %c1 step %c1 {
scf.for %i1296 = %c0 to %c1 step %c1 {
scf.for %i1297 = %c0 to %c1 step %c1 {
scf.for %i1298 = %c0 to %c1 step %c1 {
scf.for %i1299 = %c0 to %c1 step %c1 {
scf.for %i1300 = %c0 to %c1 step %c1 {
scf.for %i1301 = %c0 to %c1 step %c1 {
scf.for %i1302 = %c0 to %c1 step %c1 {
scf.for %i1303 = %c0 to %c1 step %c1 {
scf.for %i1304 = %c0 to %c1 step %c1 {
scf.for %i1305 = %c0 to %c1 step %c1 {
scf.for %i1306 = %c0 to %c1 step %c1 {
scf.for %i1307 = %c0 to %c1 step %c1 {
scf.for %i1308 = %c0 to %c1 step %c1 {
scf.for %i1309 = %c0 to %c1 step %c1 {
scf.for %i1310 = %c0 to %c1 step %c1 {
scf.for %i1311 = %c0 to %c1 step %c1 {
scf.for %i1312 = %c0 to %c1 step %c1 {
scf.for %i1313 = %c0 to %c1 step %c1 {
scf.for %i1314 = %c0 to %c1 step %c1 {
scf.for %i1315 = %c0 to %c1 step %c1 {
scf.for %i1316 = %c0 to %c1 step %c1 {
scf.for %i1317 = %c0 to %c1 step %c1 {
scf.for %i1318 = %c0 to %c1 step %c1 {
scf.for %i1319 = %c0 to %c1 step %c1 {
scf.for %i1320 = %c0 to %c1 step %c1 {
scf.for %i1321 = %c0 to %c1 step %c1 {
scf.for %i1322 = %c0 to %c1 step %c1 {
scf.for %i1323 = %c0 to %c1 step %c1 {
scf.for %i1324 = %c0 to %c1 step %c1 {
scf.for %i1325 = %c0 to %c1 step %c1 {
scf.for %i1326 = %c0 to %c1 step %c1 {
scf.for %i1327 = %c0 to %c1 step %c1 {
scf.for %i1328 = %c0 to %c1 step %c1 {
scf.for %i1329 = %c0 to %c1 step %c1 {
scf.for %i1330 = %c0 to %c1 step %c1 {
scf.for %i1331 = %c0 to %c1 step %c1 {
scf.for %i1332 = %c0 to %c1 step %c1 {
scf.for %i1333 = %c0 to %c1 step %c1 {
scf.for %i1334 = %c0 to %c1 step %c1 {
scf.for %i1335 = %c0 to %c1 step %c1 {
scf.for %i1336 = %c0 to %c1 step %c1 {
scf.for %i1337 = %c0 to %c1 step %c1 {
scf.for %i1338 = %c0 to %c1 step %c1 {
scf.for %i1339 = %c0 to %c1 step %c1 {
scf.for %i1340 = %c0 to %c1 step %c1 {
scf.for %i1341 = %c0 to %c1 step %c1 {
scf.for %i1342 = %c0 to %c1 step %c1 {
scf.for %i1343 = %c0 to %c1 step %c1 {
scf.for %i1344 = %c0 to %c1 step %c1 {
scf.for %i1345 = %c0 to %c1 step %c1 {
scf.for %i1346 = %c0 to %c1 step %c1 {
scf.for %i1347 = %c0 to %c1 step %c1 {
scf.for %i1348 = %c0 to %c1 step %c1 {
scf.for %i1349 = %c0 to %c1 step %c1 {
scf.for %i1350 = %c0 to %c1 step %c1 {
scf.for %i1351 = %c0 to %c1 step %c1 {
scf.for %i1352 = %c0 to %c1 step %c1 {
scf.for %i1353 = %c0 to %c1 step %c1 {
scf.for %i1354 = %c0 to %c1 step %c1 {
scf.for %i1355 = %c0 to %c1 step %c1 {
scf.for %i1356 = %c0 to %c1 step %c1 {
scf.for %i1357 = %c0 to %c1 step %c1 {
scf.for %i1358 = %c0 to %c1 step %c1 {
scf.for %i1359 = %c0 to %c1 step %c1 {
scf.for %i1360 = %c0 to %c1 step %c1 {
scf.for %i1361 = %c0 to %c1 step %c1 {
scf.for %i1362 = %c0 to %c1 step %c1 {
scf.for %i1363 = %c0 to %c1 step %c1 {
scf.for %i1364 = %c0 to %c1 step %c1 {
scf.for %i1365 = %c0 to %c1 step %c1 {
scf.for %i1366 = %c0 to %c1 step %c1 {
scf.for %i1367 = %c0 to %c1 step %c1 {
scf.for %i1368 = %c0 to %c1 step %c1 {
scf.for %i1369 = %c0 to %c1 step %c1 {
scf.for %i1370 = %c0 to %c1 step %c1 {
scf.for %i1371 = %c0 to %c1 step %c1 {
scf.for %i1372 = %c0 to %c1 step %c1 {
scf.for %i1373 = %c0 to %c1 step %c1 {
scf.for %i1374 = %c0 to %c1 step %c1 {
scf.for %i1375 = %c0 to %c1 step %c1 {
scf.for %i1376 = %c0 to %c1 step %c1 {
scf.for %i1377 = %c0 to %c1 step %c1 {
scf.for %i1378 = %c0 to %c1 step %c1 {
scf.for %i1379 = %c0 to %c1 step %c1 {
scf.for %i1380 = %c0 to %c1 step %c1 {
scf.for %i1381 = %c0 to %c1 step %c1 {
scf.for %i1382 = %c0 to %c1 step %c1 {
scf.for %i1383 = %c0 to %c1 step %c1 {
scf.for %i1384 = %c0 to %c1 step %c1 {
scf.for %i1385 = %c0 to %c1 step %c1 {
scf.for %i1386 = %c0 to %c1 step %c1 {
scf.for %i1387 = %c0 to %c1 step %c1 {
scf.for %i1388 = %c0 to %c1 step %c1 {
scf.for %i1389 = %c0 to %c1 step %c1 {
scf.for %i1390 = %c0 to %c1 step %c1 {
scf.for %i1391 = %c0 to %c1 step %c1 {
scf.for %i1392 = %c0 to %c1 step %c1 {
scf.for %i1393 = %c0 to %c1 step %c1 {
scf.for %i1394 = %c0 to %c1 step %c1 {
scf.for %i1395 = %c0 to %c1 step %c1 {
scf.for %i1396 = %c0 to %c1 step %c1 {
scf.for %i1397 = %c0 to %c1 step %c1 {
scf.for %i1398 = %c0 to %c1 step %c1 {
scf.for %i1399 = %c0 to %c1 step %c1 {
scf.for %i1400 = %c0 to %c1 step %c1 {
scf.for %i1401 = %c0 to %c1 step %c1 {
scf.for %i1402 = %c0 to %c1 step %c1 {
scf.for %i1403 = %c0 to %c1 step %c1 {
scf.for %i1404 = %c0 to %c1 step %c1 {
scf.for %i1405 = %c0 to %c1 step %c1 {
scf.for %i1406 = %c0 to %c1 step %c1 {
scf.for %i1407 = %c0 to %c1 step %c1 {
scf.for %i1408 = %c0 to %c1 step %c1 {
scf.for %i1409 = %c0 to %c1 step %c1 {
scf.for %i1410 = %c0 to %c1 step %c1 {
scf.for %i1411 = %c0 to %c1 step %c1 {
scf.for %i1412 = %c0 to %c1 step %c1 {
scf.for %i1413 = %c0 to %c1 step %c1 {
scf.for %i1414 = %c0 to %c1 step %c1 {
scf.for %i1415 = %c0 to %c1 step %c1 {
scf.for %i1416 = %c0 to %c1 step %c1 {
scf.for %i1417 = %c0 to %c1 step %c1 {
scf.for %i1418 = %c0 to %c1 step %c1 {
scf.for %i1419 = %c0 to %c1 step %c1 {
scf.for %i1420 = %c0 to %c1 step %c1 {
scf.for %i1421 = %c0 to %c1 step %c1 {
scf.for %i1422 = %c0 to %c1 step %c1 {
scf.for %i1423 = %c0 to %c1 step %c1 {
scf.for %i1424 = %c0 to %c1 step %c1 {
scf.for %i1425 = %c0 to %c1 step %c1 {
scf.for %i1426 = %c0 to %c1 step %c1 {
scf.for %i1427 = %c0 to %c1 step %c1 {
scf.for %i1428 = %c0 to %c1 step %c1 {
scf.for %i1429 = %c0 to %c1 step %c1 {
scf.for %i1430 = %c0 to %c1 step %c1 {
scf.for %i1431 = %c0 to %c1 step %c1 {
scf.for %i1432 = %c0 to %c1 step %c1 {
scf.for %i1433 = %c0 to %c1 step %c1 {
scf.for %i1434 = %c0 to %c1 step %c1 {
scf.for %i1435 = %c0 to %c1 step %c1 {
scf.for %i1436 = %c0 to %c1 step %c1 {
scf.for %i1437 = %c0 to %c1 step %c1 {
scf.for %i1438 = %c0 to %c1 step %c1 {
scf.for %i1439 = %c0 to %c1 step %c1 {
scf.for %i1440 = %c0 to %c1 step %c1 {
scf.for %i1441 = %c0 to %c1 step %c1 {
scf.for %i1442 = %c0 to %c1 step %c1 {
scf.for %i1443 = %c0 to %c1 step %c1 {
scf.for %i1444 = %c0 to %c1 step %c1 {
scf.for %i1445 = %c0 to %c1 step %c1 {
scf.for %i1446 = %c0 to %c1 step %c1 {
scf.for %i1447 = %c0 to %c1 step %c1 {
scf.for %i1448 = %c0 to %c1 step %c1 {
scf.for %i1449 = %c0 to %c1 step %c1 {
scf.for %i1450 = %c0 to %c1 step %c1 {
scf.for %i1451 = %c0 to %c1 step %c1 {
scf.for %i1452 = %c0 to %c1 step %c1 {
scf.for %i1453 = %c0 to %c1 step %c1 {
scf.for %i1454 = %c0 to %c1 step %c1 {
scf.for %i1455 = %c0 to %c1 step %c1 {
scf.for %i1456 = %c0 to %c1 step %c1 {
scf.for %i1457 = %c0 to %c1 step %c1 {
scf.for %i1458 = %c0 to %c1 step %c1 {
scf.for %i1459 = %c0 to %c1 step %c1 {
scf.for %i1460 = %c0 to %c1 step %c1 {
scf.for %i1461 = %c0 to %c1 step %c1 {
scf.for %i1462 = %c0 to %c1 step %c1 {
scf.for %i1463 = %c0 to %c1 step %c1 {
scf.for %i1464 = %c0 to %c1 step %c1 {
scf.for %i1465 = %c0 to %c1 step %c1 {
scf.for %i1466 = %c0 to %c1 step %c1 {
scf.for %i1467 = %c0 to %c1 step %c1 {
scf.for %i1468 = %c0 to %c1 step %c1 {
scf.for %i1469 = %c0 to %c1 step %c1 {
scf.for %i1470 = %c0 to %c1 step %c1 {
scf.for %i1471 = %c0 to %c1 step %c1 {
scf.for %i1472 = %c0 to %c1 step %c1 {
scf.for %i1473 = %c0 to %c1 step %c1 {
scf.for %i1474 = %c0 to %c1 step %c1 {
scf.for %i1475 = %c0 to %c1 step %c1 {
scf.for %i1476 = %c0 to %c1 step %c1 {
scf.for %i1477 = %c0 to %c1 step %c1 {
scf.for %i1478 = %c0 to %c1 step %c1 {
scf.for %i1479 = %c0 to %c1 step %c1 {
scf.for %i1480 = %c0 to %c1 step %c1 {
scf.for %i1481 = %c0 to %c1 step %c1 {
scf.for %i1482 = %c0 to %c1 step %c1 {
scf.for %i1483 = %c0 to %c1 step %c1 {
scf.for %i1484 = %c0 to %c1 step %c1 {
scf.for %i1485 = %c0 to %c1 step %c1 {
scf.for %i1486 = %c0 to %c1 step %c1 {
scf.for %i1487 = %c0 to %c1 step %c1 {
scf.for %i1488 = %c0 to %c1 step %c1 {
scf.for %i1489 = %c0 to %c1 step %c1 {
scf.for %i1490 = %c0 to %c1 step %c1 {
scf.for %i1491 = %c0 to %c1 step %c1 {
scf.for %i1492 = %c0 to %c1 step %c1 {
scf.for %i1493 = %c0 to %c1 step %c1 {
scf.for %i1494 = %c0 to %c1 step %c1 {
scf.for %i1495 = %c0 to %c1 step %c1 {
scf.for %i1496 = %c0 to %c1 step %c1 {
scf.for %i1497 = %c0 to %c1 step %c1 {
scf.for %i1498 = %c0 to %c1 step %c1 {
scf.for %i1499 = %c0 to %c1 step %c1 {
scf.for %i1500 = %c0 to %c1 step %c1 {
scf.for %i1501 = %c0 to %c1 step %c1 {
scf.for %i1502 = %c0 to %c1 step %c1 {
scf.for %i1503 = %c0 to %c1 step %c1 {
scf.for %i1504 = %c0 to %c1 step %c1 {
scf.for %i1505 = %c0 to %c1 step %c1 {
scf.for %i1506 = %c0 to %c1 step %c1 {
scf.for %i1507 = %c0 to %c1 step %c1 {
scf.for %i1508 = %c0 to %c1 step %c1 {
scf.for %i1509 = %c0 to %c1 step %c1 {
scf.for %i1510 = %c0 to %c1 step %c1 {
scf.for %i1511 = %c0 to %c1 step %c1 {
scf.for %i1512 = %c0 to %c1 step %c1 {
scf.for %i1513 = %c0 to %c1 step %c1 {
scf.for %i1514 = %c0 to %c1 step %c1 {
scf.for %i1515 = %c0 to %c1 step %c1 {
scf.for %i1516 = %c0 to %c1 step %c1 {
scf.for %i1517 = %c0 to %c1 step %c1 {
scf.for %i1518 = %c0 to %c1 step %c1 {
scf.for %i1519 = %c0 to %c1 step %c1 {
scf.for %i1520 = %c0 to %c1 step %c1 {
scf.for %i1521 = %c0 to %c1 step %c1 {
scf.for %i1522 = %c0 to %c1 step %c1 {
scf.for %i1523 = %c0 to %c1 step %c1 {
scf.for %i1524 = %c0 to %c1 step %c1 {
scf.for %i1525 = %c0 to %c1 step %c1 {
scf.for %i1526 = %c0 to %c1 step %c1 {
scf.for %i1527 = %c0 to %c1 step %c1 {
scf.for %i1528 = %c0 to %c1 step %c1 {
scf.for %i1529 = %c0 to %c1 step %c1 {
scf.for %i1530 = %c0 to %c1 step %c1 {
scf.for %i1531 = %c0 to %c1 step %c1 {
scf.for %i1532 = %c0 to %c1 step %c1 {
scf.for %i1533 = %c0 to %c1 step %c1 {
scf.for %i1534 = %c0 to %c1 step %c1 {
scf.for %i1535 = %c0 to %c1 step %c1 {
scf.for %i1536 = %c0 to %c1 step %c1 {
scf.for %i1537 = %c0 to %c1 step %c1 {
scf.for %i1538 = %c0 to %c1 step %c1 {
scf.for %i1539 = %c0 to %c1 step %c1 {
scf.for %i1540 = %c0 to %c1 step %c1 {
scf.for %i1541 = %c0 to %c1 step %c1 {
scf.for %i1542 = %c0 to %c1 step %c1 {
scf.for %i1543 = %c0 to %c1 step %c1 {
scf.for %i1544 = %c0 to %c1 step %c1 {
scf.for %i1545 = %c0 to %c1 step %c1 {
scf.for %i1546 = %c0 to %c1 step %c1 {
scf.for %i1547 = %c0 to %c1 step %c1 {
scf.for %i1548 = %c0 to %c1 step %c1 {
scf.for %i1549 = %c0 to %c1 step %c1 {
scf.for %i1550 = %c0 to %c1 step %c1 {
scf.for %i1551 = %c0 to %c1 step %c1 {
scf.for %i1552 = %c0 to %c1 step %c1 {
scf.for %i1553 = %c0 to %c1 step %c1 {
scf.for %i1554 = %c0 to %c1 step %c1 {
scf.for %i1555 = %c0 to %c1 step %c1 {
scf.for %i1556 = %c0 to %c1 step %c1 {
scf.for %i1557 = %c0 to %c1 step %c1 {
scf.for %i1558 = %c0 to %c1 step %c1 {
scf.for %i1559 = %c0 to %c1 step %c1 {
scf.for %i1560 = %c0 to %c1 step %c1 {
scf.for %i1561 = %c0 to %c1 step %c1 {
scf.for %i1562 = %c0 to %c1 step %c1 {
scf.for %i1563 = %c0 to %c1 step %c1 {
scf.for %i1564 = %c0 to %c1 step %c1 {
scf.for %i1565 = %c0 to %c1 step %c1 {
scf.for %i1566 = %c0 to %c1 step %c1 {
scf.for %i1567 = %c0 to %c1 step %c1 {
scf.for %i1568 = %c0 to %c1 step %c1 {
scf.for %i1569 = %c0 to %c1 step %c1 {
scf.for %i1570 = %c0 to %c1 step %c1 {
scf.for %i1571 = %c0 to %c1 step %c1 {
scf.for %i1572 = %c0 to %c1 step %c1 {
scf.for %i1573 = %c0 to %c1 step %c1 {
scf.for %i1574 = %c0 to %c1 step %c1 {
scf.for %i1575 = %c0 to %c1 step %c1 {
scf.for %i1576 = %c0 to %c1 step %c1 {
scf.for %i1577 = %c0 to %c1 step %c1 {
scf.for %i1578 = %c0 to %c1 step %c1 {
scf.for %i1579 = %c0 to %c1 step %c1 {
scf.for %i1580 = %c0 to %c1 step %c1 {
scf.for %i1581 = %c0 to %c1 step %c1 {
scf.for %i1582 = %c0 to %c1 step %c1 {
scf.for %i1583 = %c0 to %c1 step %c1 {
scf.for %i1584 = %c0 to %c1 step %c1 {
scf.for %i1585 = %c0 to %c1 step %c1 {
scf.for %i1586 = %c0 to %c1 step %c1 {
scf.for %i1587 = %c0 to %c1 step %c1 {
scf.for %i1588 = %c0 to %c1 step %c1 {
scf.for %i1589 = %c0 to %c1 step %c1 {
scf.for %i1590 = %c0 to %c1 step %c1 {
scf.for %i1591 = %c0 to %c1 step %c1 {
scf.for %i1592 = %c0 to %c1 step %c1 {
scf.for %i1593 = %c0 to %c1 step %c1 {
scf.for %i1594 = %c0 to %c1 step %c1 {
scf.for %i1595 = %c0 to %c1 step %c1 {
scf.for %i1596 = %c0 to %c1 step %c1 {
scf.for %i1597 = %c0 to %c1 step %c1 {
scf.for %i1598 = %c0 to %c1 step %c1 {
scf.for %i1599 = %c0 to %c1 step %c1 {
scf.for %i1600 = %c0 to %c1 step %c1 {
scf.for %i1601 = %c0 to %c1 step %c1 {
scf.for %i1602 = %c0 to %c1 step %c1 {
scf.for %i1603 = %c0 to %c1 step %c1 {
scf.for %i1604 = %c0 to %c1 step %c1 {
scf.for %i1605 = %c0 to %c1 step %c1 {
scf.for %i1606 = %c0 to %c1 step %c1 {
scf.for %i1607 = %c0 to %c1 step %c1 {
scf.for %i1608 = %c0 to %c1 step %c1 {
scf.for %i1609 = %c0 to %c1 step %c1 {
scf.for %i1610 = %c0 to %c1 step %c1 {
scf.for %i1611 = %c0 to %c1 step %c1 {
scf.for %i1612 = %c0 to %c1 step %c1 {
scf.for %i1613 = %c0 to %c1 step %c1 {
scf.for %i1614 = %c0 to %c1 step %c1 {
scf.for %i1615 = %c0 to %c1 step %c1 {
scf.for %i1616 = %c0 to %c1 step %c1 {
scf.for %i1617 = %c0 to %c1 step %c1 {
scf.for %i1618 = %c0 to %c1 step %c1 {
scf.for %i1619 = %c0 to %c1 step %c1 {
scf.for %i1620 = %c0 to %c1 step %c1 {
scf.for %i1621 = %c0 to %c1 step %c1 {
scf.for %i1622 = %c0 to %c1 step %c1 {
scf.for %i1623 = %c0 to %c1 step %c1 {
scf.for %i1624 = %c0 to %c1 step %c1 {
scf.for %i1625 = %c0 to %c1 step %c1 {
scf.for %i1626 = %c0 to %c1 step %c1 {
scf.for %i1627 = %c0 to %c1 step %c1 {
scf.for %i1628 = %c0 to %c1 step %c1 {
scf.for %i1629 = %c0 to %c1 step %c1 {
scf.for %i1630 = %c0 to %c1 step %c1 {
scf.for %i1631 = %c0 to %c1 step %c1 {
scf.for %i1632 = %c0 to %c1 step %c1 {
scf.for %i1633 = %c0 to %c1 step %c1 {
scf.for %i1634 = %c0 to %c1 step %c1 {
scf.for %i1635 = %c0 to %c1 step %c1 {
scf.for %i1636 = %c0 to %c1 step %c1 {
scf.for %i1637 = %c0 to %c1 step %c1 {
scf.for %i1638 = %c0 to %c1 step %c1 {
scf.for %i1639 = %c0 to %c1 step %c1 {
scf.for %i1640 = %c0 to %c1 step %c1 {
scf.for %i1641 = %c0 to %c1 step %c1 {
scf.for %i1642 = %c0 to %c1 step %c1 {
scf.for %i1643 = %c0 to %c1 step %c1 {
scf.for %i1644 = %c0 to %c1 step %c1 {
scf.for %i1645 = %c0 to %c1 step %c1 {
scf.for %i1646 = %c0 to %c1 step %c1 {
scf.for %i1647 = %c0 to %c1 step %c1 {
scf.for %i1648 = %c0 to %c1 step %c1 {
scf.for %i1649 = %c0 to %c1 step %c1 {
scf.for %i1650 = %c0 to %c1 step %c1 {
scf.for %i1651 = %c0 to %c1 step %c1 {
scf.for %i1652 = %c0 to %c1 step %c1 {
scf.for %i1653 = %c0 to %c1 step %c1 {
scf.for %i1654 = %c0 to %c1 step %c1 {
scf.for %i1655 = %c0 to %c1 step %c1 {
scf.for %i1656 = %c0 to %c1 step %c1 {
scf.for %i1657 = %c0 to %c1 step %c1 {
scf.for %i1658 = %c0 to %c1 step %c1 {
scf.for %i1659 = %c0 to %c1 step %c1 {
scf.for %i1660 = %c0 to %c1 step %c1 {
scf.for %i1661 = %c0 to %c1 step %c1 {
scf.for %i1662 = %c0 to %c1 step %c1 {
scf.for %i1663 = %c0 to %c1 step %c1 {
scf.for %i1664 = %c0 to %c1 step %c1 {
scf.for %i1665 = %c0 to %c1 step %c1 {
scf.for %i1666 = %c0 to %c1 step %c1 {
scf.for %i1667 = %c0 to %c1 step %c1 {
scf.for %i1668 = %c0 to %c1 step %c1 {
scf.for %i1669 = %c0 to %c1 step %c1 {
scf.for %i1670 = %c0 to %c1 step %c1 {
scf.for %i1671 = %c0 to %c1 step %c1 {
scf.for %i1672 = %c0 to %c1 step %c1 {
scf.for %i1673 = %c0 to %c1 step %c1 {
scf.for %i1674 = %c0 to %c1 step %c1 {
scf.for %i1675 = %c0 to %c1 step %c1 {
scf.for %i1676 = %c0 to %c1 step %c1 {
scf.for %i1677 = %c0 to %c1 step %c1 {
scf.for %i1678 = %c0 to %c1 step %c1 {
scf.for %i1679 = %c0 to %c1 step %c1 {
scf.for %i1680 = %c0 to %c1 step %c1 {
scf.for %i1681 = %c0 to %c1 step %c1 {
scf.for %i1682 = %c0 to %c1 step %c1 {
scf.for %i1683 = %c0 to %c1 step %c1 {
scf.for %i1684 = %c0 to %c1 step %c1 {
scf.for %i1685 = %c0 to %c1 step %c1 {
scf.for %i1686 = %c0 to %c1 step %c1 {
scf.for %i1687 = %c0 to %c1 step %c1 {
scf.for %i1688 = %c0 to %c1 step %c1 {
scf.for %i1689 = %c0 to %c1 step %c1 {
scf.for %i1690 = %c0 to %c1 step %c1 {
scf.for %i1691 = %c0 to %c1 step %c1 {
scf.for %i1692 = %c0 to %c1 step %c1 {
scf.for %i1693 = %c0 to %c1 step %c1 {
scf.for %i1694 = %c0 to %c1 step %c1 {
scf.for %i1695 = %c0 to %c1 step %c1 {
scf.for %i1696 = %c0 to %c1 step %c1 {
scf.for %i1697 = %c0 to %c1 step %c1 {
scf.for %i1698 = %c0 to %c1 step %c1 {
scf.for %i1699 = %c0 to %c1 step %c1 {
scf.for %i1700 = %c0 to %c1 step %c1 {
scf.for %i1701 = %c0 to %c1 step %c1 {
scf.for %i1702 = %c0 to %c1 step %c1 {
scf.for %i1703 = %c0 to %c1 step %c1 {
scf.for %i1704 = %c0 to %c1 step %c1 {
scf.for %i1705 = %c0 to %c1 step %c1 {
scf.for %i1706 = %c0 to %c1 step %c1 {
scf.for %i1707 = %c0 to %c1 step %c1 {
scf.for %i1708 = %c0 to %c1 step %c1 {
scf.for %i1709 = %c0 to %c1 step %c1 {
scf.for %i1710 = %c0 to %c1 step %c1 {
scf.for %i1711 = %c0 to %c1 step %c1 {
scf.for %i1712 = %c0 to %c1 step %c1 {
scf.for %i1713 = %c0 to %c1 step %c1 {
scf.for %i1714 = %c0 to %c1 step %c1 {
scf.for %i1715 = %c0 to %c1 step %c1 {
scf.for %i1716 = %c0 to %c1 step %c1 {
scf.for %i1717 = %c0 to %c1 step %c1 {
scf.for %i1718 = %c0 to %c1 step %c1 {
scf.for %i1719 = %c0 to %c1 step %c1 {
scf.for %i1720 = %c0 to %c1 step %c1 {
scf.for %i1721 = %c0 to %c1 step %c1 {
scf.for %i1722 = %c0 to %c1 step %c1 {
scf.for %i1723 = %c0 to %c1 step %c1 {
scf.for %i1724 = %c0 to %c1 step %c1 {
scf.for %i1725 = %c0 to %c1 step %c1 {
scf.for %i1726 = %c0 to %c1 step %c1 {
scf.for %i1727 = %c0 to %c1 step %c1 {
scf.for %i1728 = %c0 to %c1 step %c1 {
scf.for %i1729 = %c0 to %c1 step %c1 {
scf.for %i1730 = %c0 to %c1 step %c1 {
scf.for %i1731 = %c0 to %c1 step %c1 {
scf.for %i1732 = %c0 to %c1 step %c1 {
scf.for %i1733 = %c0 to %c1 step %c1 {
scf.for %i1734 = %c0 to %c1 step %c1 {
scf.for %i1735 = %c0 to %c1 step %c1 {
scf.for %i1736 = %c0 to %c1 step %c1 {
scf.for %i1737 = %c0 to %c1 step %c1 {
scf.for %i1738 = %c0 to %c1 step %c1 {
scf.for %i1739 = %c0 to %c1 step %c1 {
scf.for %i1740 = %c0 to %c1 step %c1 {
scf.for %i1741 = %c0 to %c1 step %c1 {
scf.for %i1742 = %c0 to %c1 step %c1 {
scf.for %i1743 = %c0 to %c1 step %c1 {
scf.for %i1744 = %c0 to %c1 step %c1 {
scf.for %i1745 = %c0 to %c1 step %c1 {
scf.for %i1746 = %c0 to %c1 step %c1 {
scf.for %i1747 = %c0 to %c1 step %c1 {
scf.for %i1748 = %c0 to %c1 step %c1 {
scf.for %i1749 = %c0 to %c1 step %c1 {
scf.for %i1750 = %c0 to %c1 step %c1 {
scf.for %i1751 = %c0 to %c1 step %c1 {
scf.for %i1752 = %c0 to %c1 step %c1 {
scf.for %i1753 = %c0 to %c1 step %c1 {
scf.for %i1754 = %c0 to %c1 step %c1 {
scf.for %i1755 = %c0 to %c1 step %c1 {
scf.for %i1756 = %c0 to %c1 step %c1 {
scf.for %i1757 = %c0 to %c1 step %c1 {
scf.for %i1758 = %c0 to %c1 step %c1 {
scf.for %i1759 = %c0 to %c1 step %c1 {
scf.for %i1760 = %c0 to %c1 step %c1 {
scf.for %i1761 = %c0 to %c1 step %c1 {
scf.for %i1762 = %c0 to %c1 step %c1 {
scf.for %i1763 = %c0 to %c1 step %c1 {
scf.for %i1764 = %c0 to %c1 step %c1 {
scf.for %i1765 = %c0 to %c1 step %c1 {
scf.for %i1766 = %c0 to %c1 step %c1 {
scf.for %i1767 = %c0 to %c1 step %c1 {
scf.for %i1768 = %c0 to %c1 step %c1 {
scf.for %i1769 = %c0 to %c1 step %c1 {
scf.for %i1770 = %c0 to %c1 step %c1 {
scf.for %i1771 = %c0 to %c1 step %c1 {
scf.for %i1772 = %c0 to %c1 step %c1 {
scf.for %i1773 = %c0 to %c1 step %c1 {
scf.for %i1774 = %c0 to %c1 step %c1 {
scf.for %i1775 = %c0 to %c1 step %c1 {
scf.for %i1776 = %c0 to %c1 step %c1 {
scf.for %i1777 = %c0 to %c1 step %c1 {
scf.for %i1778 = %c0 to %c1 step %c1 {
scf.for %i1779 = %c0 to %c1 step %c1 {
scf.for %i1780 = %c0 to %c1 step %c1 {
scf.for %i1781 = %c0 to %c1 step %c1 {
scf.for %i1782 = %c0 to %c1 step %c1 {
scf.for %i1783 = %c0 to %c1 step %c1 {
scf.for %i1784 = %c0 to %c1 step %c1 {
scf.for %i1785 = %c0 to %c1 step %c1 {
scf.for %i1786 = %c0 to %c1 step %c1 {
scf.for %i1787 = %c0 to %c1 step %c1 {
scf.for %i1788 = %c0 to %c1 step %c1 {
scf.for %i1789 = %c0 to %c1 step %c1 {
scf.for %i1790 = %c0 to %c1 step %c1 {
scf.for %i1791 = %c0 to %c1 step %c1 {
scf.for %i1792 = %c0 to %c1 step %c1 {
scf.for %i1793 = %c0 to %c1 step %c1 {
scf.for %i1794 = %c0 to %c1 step %c1 {
scf.for %i1795 = %c0 to %c1 step %c1 {
scf.for %i1796 = %c0 to %c1 step %c1 {
scf.for %i1797 = %c0 to %c1 step %c1 {
scf.for %i1798 = %c0 to %c1 step %c1 {
scf.for %i1799 = %c0 to %c1 step %c1 {
scf.for %i1800 = %c0 to %c1 step %c1 {
scf.for %i1801 = %c0 to %c1 step %c1 {
scf.for %i1802 = %c0 to %c1 step %c1 {
scf.for %i1803 = %c0 to %c1 step %c1 {
scf.for %i1804 = %c0 to %c1 step %c1 {
scf.for %i1805 = %c0 to %c1 step %c1 {
scf.for %i1806 = %c0 to %c1 step %c1 {
scf.for %i1807 = %c0 to %c1 step %c1 {
scf.for %i1808 = %c0 to %c1 step %c1 {
scf.for %i1809 = %c0 to %c1 step %c1 {
scf.for %i1810 = %c0 to %c1 step %c1 {
scf.for %i1811 = %c0 to %c1 step %c1 {
scf.for %i1812 = %c0 to %c1 step %c1 {
scf.for %i1813 = %c0 to %c1 step %c1 {
scf.for %i1814 = %c0 to %c1 step %c1 {
scf.for %i1815 = %c0 to %c1 step %c1 {
scf.for %i1816 = %c0 to %c1 step %c1 {
scf.for %i1817 = %c0 to %c1 step %c1 {
scf.for %i1818 = %c0 to %c1 step %c1 {
scf.for %i1819 = %c0 to %c1 step %c1 {
scf.for %i1820 = %c0 to %c1 step %c1 {
scf.for %i1821 = %c0 to %c1 step %c1 {
scf.for %i1822 = %c0 to %c1 step %c1 {
scf.for %i1823 = %c0 to %c1 step %c1 {
scf.for %i1824 = %c0 to %c1 step %c1 {
scf.for %i1825 = %c0 to %c1 step %c1 {
scf.for %i1826 = %c0 to %c1 step %c1 {
scf.for %i1827 = %c0 to %c1 step %c1 {
scf.for %i1828 = %c0 to %c1 step %c1 {
scf.for %i1829 = %c0 to %c1 step %c1 {
scf.for %i1830 = %c0 to %c1 step %c1 {
scf.for %i1831 = %c0 to %c1 step %c1 {
scf.for %i1832 = %c0 to %c1 step %c1 {
scf.for %i1833 = %c0 to %c1 step %c1 {
scf.for %i1834 = %c0 to %c1 step %c1 {
scf.for %i1835 = %c0 to %c1 step %c1 {
scf.for %i1836 = %c0 to %c1 step %c1 {
scf.for %i1837 = %c0 to %c1 step %c1 {
scf.for %i1838 = %c0 to %c1 step %c1 {
scf.for %i1839 = %c0 to %c1 step %c1 {
scf.for %i1840 = %c0 to %c1 step %c1 {
scf.for %i1841 = %c0 to %c1 step %c1 {
scf.for %i1842 = %c0 to %c1 step %c1 {
scf.for %i1843 = %c0 to %c1 step %c1 {
scf.for %i1844 = %c0 to %c1 step %c1 {
scf.for %i1845 = %c0 to %c1 step %c1 {
scf.for %i1846 = %c0 to %c1 step %c1 {
scf.for %i1847 = %c0 to %c1 step %c1 {
scf.for %i1848 = %c0 to %c1 step %c1 {
scf.for %i1849 = %c0 to %c1 step %c1 {
scf.for %i1850 = %c0 to %c1 step %c1 {
scf.for %i1851 = %c0 to %c1 step %c1 {
scf.for %i1852 = %c0 to %c1 step %c1 {
scf.for %i1853 = %c0 to %c1 step %c1 {
scf.for %i1854 = %c0 to %c1 step %c1 {
scf.for %i1855 = %c0 to %c1 step %c1 {
scf.for %i1856 = %c0 to %c1 step %c1 {
scf.for %i1857 = %c0 to %c1 step %c1 {
scf.for %i1858 = %c0 to %c1 step %c1 {
scf.for %i1859 = %c0 to %c1 step %c1 {
scf.for %i1860 = %c0 to %c1 step %c1 {
scf.for %i1861 = %c0 to %c1 step %c1 {
scf.for %i1862 = %c0 to %c1 step %c1 {
scf.for %i1863 = %c0 to %c1 step %c1 {
scf.for %i1864 = %c0 to %c1 step %c1 {
scf.for %i1865 = %c0 to %c1 step %c1 {
scf.for %i1866 = %c0 to %c1 step %c1 {
scf.for %i1867 = %c0 to %c1 step %c1 {
scf.for %i1868 = %c0 to %c1 step %c1 {
scf.for %i1869 = %c0 to %c1 step %c1 {
scf.for %i1870 = %c0 to %c1 step %c1 {
scf.for %i1871 = %c0 to %c1 step %c1 {
scf.for %i1872 = %c0 to %c1 step %c1 {
scf.for %i1873 = %c0 to %c1 step %c1 {
scf.for %i1874 = %c0 to %c1 step %c1 {
scf.for %i1875 = %c0 to %c1 step %c1 {
scf.for %i1876 = %c0 to %c1 step %c1 {
scf.for %i1877 = %c0 to %c1 step %c1 {
scf.for %i1878 = %c0 to %c1 step %c1 {
scf.for %i1879 = %c0 to %c1 step %c1 {
scf.for %i1880 = %c0 to %c1 step %c1 {
scf.for %i1881 = %c0 to %c1 step %c1 {
scf.for %i1882 = %c0 to %c1 step %c1 {
scf.for %i1883 = %c0 to %c1 step %c1 {
scf.for %i1884 = %c0 to %c1 step %c1 {
scf.for %i1885 = %c0 to %c1 step %c1 {
scf.for %i1886 = %c0 to %c1 step %c1 {
scf.for %i1887 = %c0 to %c1 step %c1 {
scf.for %i1888 = %c0 to %c1 step %c1 {
scf.for %i1889 = %c0 to %c1 step %c1 {
scf.for %i1890 = %c0 to %c1 step %c1 {
scf.for %i1891 = %c0 to %c1 step %c1 {
scf.for %i1892 = %c0 to %c1 step %c1 {
scf.for %i1893 = %c0 to %c1 step %c1 {
scf.for %i1894 = %c0 to %c1 step %c1 {
scf.for %i1895 = %c0 to %c1 step %c1 {
scf.for %i1896 = %c0 to %c1 step %c1 {
scf.for %i1897 = %c0 to %c1 step %c1 {
scf.for %i1898 = %c0 to %c1 step %c1 {
scf.for %i1899 = %c0 to %c1 step %c1 {
scf.for %i1900 = %c0 to %c1 step %c1 {
scf.for %i1901 = %c0 to %c1 step %c1 {
scf.for %i1902 = %c0 to %c1 step %c1 {
scf.for %i1903 = %c0 to %c1 step %c1 {
scf.for %i1904 = %c0 to %c1 step %c1 {
scf.for %i1905 = %c0 to %c1 step %c1 {
scf.for %i1906 = %c0 to %c1 step %c1 {
scf.for %i1907 = %c0 to %c1 step %c1 {
scf.for %i1908 = %c0 to %c1 step %c1 {
scf.for %i1909 = %c0 to %c1 step %c1 {
scf.for %i1910 = %c0 to %c1 step %c1 {
scf.for %i1911 = %c0 to %c1 step %c1 {
scf.for %i1912 = %c0 to %c1 step %c1 {
scf.for %i1913 = %c0 to %c1 step %c1 {
scf.for %i1914 = %c0 to %c1 step %c1 {
scf.for %i1915 = %c0 to %c1 step %c1 {
scf.for %i1916 = %c0 to %c1 step %c1 {
scf.for %i1917 = %c0 to %c1 step %c1 {
scf.for %i1918 = %c0 to %c1 step %c1 {
scf.for %i1919 = %c0 to %c1 step %c1 {
scf.for %i1920 = %c0 to %c1 step %c1 {
scf.for %i1921 = %c0 to %c1 step %c1 {
scf.for %i1922 = %c0 to %c1 step %c1 {
scf.for %i1923 = %c0 to %c1 step %c1 {
scf.for %i1924 = %c0 to %c1 step %c1 {
scf.for %i1925 = %c0 to %c1 step %c1 {
scf.for %i1926 = %c0 to %c1 step %c1 {
scf.for %i1927 = %c0 to %c1 step %c1 {
scf.for %i1928 = %c0 to %c1 step %c1 {
scf.for %i1929 = %c0 to %c1 step %c1 {
scf.for %i1930 = %c0 to %c1 step %c1 {
scf.for %i1931 = %c0 to %c1 step %c1 {
scf.for %i1932 = %c0 to %c1 step %c1 {
scf.for %i1933 = %c0 to %c1 step %c1 {
scf.for %i1934 = %c0 to %c1 step %c1 {
scf.for %i1935 = %c0 to %c1 step %c1 {
scf.for %i1936 = %c0 to %c1 step %c1 {
scf.for %i1937 = %c0 to %c1 step %c1 {
scf.for %i1938 = %c0 to %c1 step %c1 {
scf.for %i1939 = %c0 to %c1 step %c1 {
scf.for %i1940 = %c0 to %c1 step %c1 {
scf.for %i1941 = %c0 to %c1 step %c1 {
scf.for %i1942 = %c0 to %c1 step %c1 {
scf.for %i1943 = %c0 to %c1 step %c1 {
scf.for %i1944 = %c0 to %c1 step %c1 {
scf.for %i1945 = %c0 to %c1 step %c1 {
scf.for %i1946 = %c0 to %c1 step %c1 {
scf.for %i1947 = %c0 to %c1 step %c1 {
scf.for %i1948 = %c0 to %c1 step %c1 {
scf.for %i1949 = %c0 to %c1 step %c1 {
scf.for %i1950 = %c0 to %c1 step %c1 {
scf.for %i1951 = %c0 to %c1 step %c1 {
scf.for %i1952 = %c0 to %c1 step %c1 {
scf.for %i1953 = %c0 to %c1 step %c1 {
scf.for %i1954 = %c0 to %c1 step %c1 {
scf.for %i1955 = %c0 to %c1 step %c1 {
scf.for %i1956 = %c0 to %c1 step %c1 {
scf.for %i1957 = %c0 to %c1 step %c1 {
scf.for %i1958 = %c0 to %c1 step %c1 {
scf.for %i1959 = %c0 to %c1 step %c1 {
scf.for %i1960 = %c0 to %c1 step %c1 {
scf.for %i1961 = %c0 to %c1 step %c1 {
scf.for %i1962 = %c0 to %c1 step %c1 {
scf.for %i1963 = %c0 to %c1 step %c1 {
scf.for %i1964 = %c0 to %c1 step %c1 {
scf.for %i1965 = %c0 to %c1 step %c1 {
scf.for %i1966 = %c0 to %c1 step %c1 {
scf.for %i1967 = %c0 to %c1 step %c1 {
scf.for %i1968 = %c0 to %c1 step %c1 {
scf.for %i1969 = %c0 to %c1 step %c1 {
scf.for %i1970 = %c0 to %c1 step %c1 {
scf.for %i1971 = %c0 to %c1 step %c1 {
scf.for %i1972 = %c0 to %c1 step %c1 {
scf.for %i1973 = %c0 to %c1 step %c1 {
scf.for %i1974 = %c0 to %c1 step %c1 {
scf.for %i1975 = %c0 to %c1 step %c1 {
scf.for %i1976 = %c0 to %c1 step %c1 {
scf.for %i1977 = %c0 to %c1 step %c1 {
scf.for %i1978 = %c0 to %c1 step %c1 {
scf.for %i1979 = %c0 to %c1 step %c1 {
scf.for %i1980 = %c0 to %c1 step %c1 {
scf.for %i1981 = %c0 to %c1 step %c1 {
scf.for %i1982 = %c0 to %c1 step %c1 {
scf.for %i1983 = %c0 to %c1 step %c1 {
scf.for %i1984 = %c0 to %c1 step %c1 {
scf.for %i1985 = %c0 to %c1 step %c1 {
scf.for %i1986 = %c0 to %c1 step %c1 {
scf.for %i1987 = %c0 to %c1 step %c1 {
scf.for %i1988 = %c0 to %c1 step %c1 {
scf.for %i1989 = %c0 to %c1 step %c1 {
scf.for %i1990 = %c0 to %c1 step %c1 {
scf.for %i1991 = %c0 to %c1 step %c1 {
scf.for %i1992 = %c0 to %c1 step %c1 {
scf.for %i1993 = %c0 to %c1 step %c1 {
scf.for %i1994 = %c0 to %c1 step %c1 {
scf.for %i1995 = %c0 to %c1 step %c1 {
scf.for %i1996 = %c0 to %c1 step %c1 {
scf.for %i1997 = %c0 to %c1 step %c1 {
scf.for %i1998 = %c0 to %c1 step %c1 {
scf.for %i1999 = %c0 to %c1 step %c1 {
scf.for %i2000 = %c0 to %c1 step %c1 {
scf.for %i2001 = %c0 to %c1 step %c1 {
scf.for %i2002 = %c0 to %c1 step %c1 {
scf.for %i2003 = %c0 to %c1 step %c1 {
scf.for %i2004 = %c0 to %c1 step %c1 {
scf.for %i2005 = %c0 to %c1 step %c1 {
scf.for %i2006 = %c0 to %c1 step %c1 {
scf.for %i2007 = %c0 to %c1 step %c1 {
scf.for %i2008 = %c0 to %c1 step %c1 {
scf.for %i2009 = %c0 to %c1 step %c1 {
scf.for %i2010 = %c0 to %c1 step %c1 {
scf.for %i2011 = %c0 to %c1 step %c1 {
scf.for %i2012 = %c0 to %c1 step %c1 {
scf.for %i2013 = %c0 to %c1 step %c1 {
scf.for %i2014 = %c0 to %c1 step %c1 {
scf.for %i2015 = %c0 to %c1 step %c1 {
scf.for %i2016 = %c0 to %c1 step %c1 {
scf.for %i2017 = %c0 to %c1 step %c1 {
scf.for %i2018 = %c0 to %c1 step %c1 {
scf.for %i2019 = %c0 to %c1 step %c1 {
scf.for %i2020 = %c0 to %c1 step %c1 {
scf.for %i2021 = %c0 to %c1 step %c1 {
scf.for %i2022 = %c0 to %c1 step %c1 {
scf.for %i2023 = %c0 to %c1 step %c1 {
scf.for %i2024 = %c0 to %c1 step %c1 {
scf.for %i2025 = %c0 to %c1 step %c1 {
scf.for %i2026 = %c0 to %c1 step %c1 {
scf.for %i2027 = %c0 to %c1 step %c1 {
scf.for %i2028 = %c0 to %c1 step %c1 {
scf.for %i2029 = %c0 to %c1 step %c1 {
scf.for %i2030 = %c0 to %c1 step %c1 {
scf.for %i2031 = %c0 to %c1 step %c1 {
scf.for %i2032 = %c0 to %c1 step %c1 {
scf.for %i2033 = %c0 to %c1 step %c1 {
scf.for %i2034 = %c0 to %c1 step %c1 {
scf.for %i2035 = %c0 to %c1 step %c1 {
scf.for %i2036 = %c0 to %c1 step %c1 {
scf.for %i2037 = %c0 to %c1 step %c1 {
scf.for %i2038 = %c0 to %c1 step %c1 {
scf.for %i2039 = %c0 to %c1 step %c1 {
scf.for %i2040 = %c0 to %c1 step %c1 {
scf.for %i2041 = %c0 to %c1 step %c1 {
scf.for %i2042 = %c0 to %c1 step %c1 {
scf.for %i2043 = %c0 to %c1 step %c1 {
scf.for %i2044 = %c0 to %c1 step %c1 {
scf.for %i2045 = %c0 to %c1 step %c1 {
scf.for %i2046 = %c0 to %c1 step %c1 {
scf.for %i2047 = %c0 to %c1 step %c1 {
scf.for %i2048 = %c0 to %c1 step %c1 {
scf.for %i2049 = %c0 to %c1 step %c1 {
scf.for %i2050 = %c0 to %c1 step %c1 {
scf.for %i2051 = %c0 to %c1 step %c1 {
scf.for %i2052 = %c0 to %c1 step %c1 {
scf.for %i2053 = %c0 to %c1 step %c1 {
scf.for %i2054 = %c0 to %c1 step %c1 {
scf.for %i2055 = %c0 to %c1 step %c1 {
scf.for %i2056 = %c0 to %c1 step %c1 {
scf.for %i2057 = %c0 to %c1 step %c1 {
scf.for %i2058 = %c0 to %c1 step %c1 {
scf.for %i2059 = %c0 to %c1 step %c1 {
scf.for %i2060 = %c0 to %c1 step %c1 {
scf.for %i2061 = %c0 to %c1 step %c1 {
scf.for %i2062 = %c0 to %c1 step %c1 {
scf.for %i2063 = %c0 to %c1 step %c1 {
scf.for %i2064 = %c0 to %c1 step %c1 {
scf.for %i2065 = %c0 to %c1 step %c1 {
scf.for %i2066 = %c0 to %c1 step %c1 {
scf.for %i2067 = %c0 to %c1 step %c1 {
scf.for %i2068 = %c0 to %c1 step %c1 {
scf.for %i2069 = %c0 to %c1 step %c1 {
scf.for %i2070 = %c0 to %c1 step %c1 {
scf.for %i2071 = %c0 to %c1 step %c1 {
scf.for %i2072 = %c0 to %c1 step %c1 {
scf.for %i2073 = %c0 to %c1 step %c1 {
scf.for %i2074 = %c0 to %c1 step %c1 {
scf.for %i2075 = %c0 to %c1 step %c1 {
scf.for %i2076 = %c0 to %c1 step %c1 {
scf.for %i2077 = %c0 to %c1 step %c1 {
scf.for %i2078 = %c0 to %c1 step %c1 {
scf.for %i2079 = %c0 to %c1 step %c1 {
scf.for %i2080 = %c0 to %c1 step %c1 {
scf.for %i2081 = %c0 to %c1 step %c1 {
scf.for %i2082 = %c0 to %c1 step %c1 {
scf.for %i2083 = %c0 to %c1 step %c1 {
scf.for %i2084 = %c0 to %c1 step %c1 {
scf.for %i2085 = %c0 to %c1 step %c1 {
scf.for %i2086 = %c0 to %c1 step %c1 {
scf.for %i2087 = %c0 to %c1 step %c1 {
scf.for %i2088 = %c0 to %c1 step %c1 {
scf.for %i2089 = %c0 to %c1 step %c1 {
scf.for %i2090 = %c0 to %c1 step %c1 {
scf.for %i2091 = %c0 to %c1 step %c1 {
scf.for %i2092 = %c0 to %c1 step %c1 {
scf.for %i2093 = %c0 to %c1 step %c1 {
scf.for %i2094 = %c0 to %c1 step %c1 {
scf.for %i2095 = %c0 to %c1 step %c1 {
scf.for %i2096 = %c0 to %c1 step %c1 {
scf.for %i2097 = %c0 to %c1 step %c1 {
scf.for %i2098 = %c0 to %c1 step %c1 {
scf.for %i2099 = %c0 to %c1 step %c1 {
scf.for %i2100 = %c0 to %c1 step %c1 {
scf.for %i2101 = %c0 to %c1 step %c1 {
scf.for %i2102 = %c0 to %c1 step %c1 {
scf.for %i2103 = %c0 to %c1 step %c1 {
scf.for %i2104 = %c0 to %c1 step %c1 {
scf.for %i2105 = %c0 to %c1 step %c1 {
scf.for %i2106 = %c0 to %c1 step %c1 {
scf.for %i2107 = %c0 to %c1 step %c1 {
scf.for %i2108 = %c0 to %c1 step %c1 {
scf.for %i2109 = %c0 to %c1 step %c1 {
scf.for %i2110 = %c0 to %c1 step %c1 {
scf.for %i2111 = %c0 to %c1 step %c1 {
scf.for %i2112 = %c0 to %c1 step %c1 {
scf.for %i2113 = %c0 to %c1 step %c1 {
scf.for %i2114 = %c0 to %c1 step %c1 {
scf.for %i2115 = %c0 to %c1 step %c1 {
scf.for %i2116 = %c0 to %c1 step %c1 {
scf.for %i2117 = %c0 to %c1 step %c1 {
scf.for %i2118 = %c0 to %c1 step %c1 {
scf.for %i2119 = %c0 to %c1 step %c1 {
scf.for %i2120 = %c0 to %c1 step %c1 {
scf.for %i2121 = %c0 to %c1 step %c1 {
scf.for %i2122 = %c0 to %c1 step %c1 {
scf.for %i2123 = %c0 to %c1 step %c1 {
scf.for %i2124 = %c0 to %c1 step %c1 {
scf.for %i2125 = %c0 to %c1 step %c1 {
scf.for %i2126 = %c0 to %c1 step %c1 {
scf.for %i2127 = %c0 to %c1 step %c1 {
scf.for %i2128 = %c0 to %c1 step %c1 {
scf.for %i2129 = %c0 to %c1 step %c1 {
scf.for %i2130 = %c0 to %c1 step %c1 {
scf.for %i2131 = %c0 to %c1 step %c1 {
scf.for %i2132 = %c0 to %c1 step %c1 {
scf.for %i2133 = %c0 to %c1 step %c1 {
scf.for %i2134 = %c0 to %c1 step %c1 {
scf.for %i2135 = %c0 to %c1 step %c1 {
scf.for %i2136 = %c0 to %c1 step %c1 {
scf.for %i2137 = %c0 to %c1 step %c1 {
scf.for %i2138 = %c0 to %c1 step %c1 {
scf.for %i2139 = %c0 to %c1 step %c1 {
scf.for %i2140 = %c0 to %c1 step %c1 {
scf.for %i2141 = %c0 to %c1 step %c1 {
scf.for %i2142 = %c0 to %c1 step %c1 {
scf.for %i2143 = %c0 to %c1 step %c1 {
scf.for %i2144 = %c0 to %c1 step %c1 {
scf.for %i2145 = %c0 to %c1 step %c1 {
scf.for %i2146 = %c0 to %c1 step %c1 {
scf.for %i2147 = %c0 to %c1 step %c1 {
scf.for %i2148 = %c0 to %c1 step %c1 {
scf.for %i2149 = %c0 to %c1 step %c1 {
scf.for %i2150 = %c0 to %c1 step %c1 {
scf.for %i2151 = %c0 to %c1 step %c1 {
scf.for %i2152 = %c0 to %c1 step %c1 {
scf.for %i2153 = %c0 to %c1 step %c1 {
scf.for %i2154 = %c0 to %c1 step %c1 {
scf.for %i2155 = %c0 to %c1 step %c1 {
scf.for %i2156 = %c0 to %c1 step %c1 {
scf.for %i2157 = %c0 to %c1 step %c1 {
scf.for %i2158 = %c0 to %c1 step %c1 {
scf.for %i2159 = %c0 to %c1 step %c1 {
scf.for %i2160 = %c0 to %c1 step %c1 {
scf.for %i2161 = %c0 to %c1 step %c1 {
scf.for %i2162 = %c0 to %c1 step %c1 {
scf.for %i2163 = %c0 to %c1 step %c1 {
scf.for %i2164 = %c0 to %c1 step %c1 {
scf.for %i2165 = %c0 to %c1 step %c1 {
scf.for %i2166 = %c0 to %c1 step %c1 {
scf.for %i2167 = %c0 to %c1 step %c1 {
scf.for %i2168 = %c0 to %c1 step %c1 {
scf.for %i2169 = %c0 to %c1 step %c1 {
scf.for %i2170 = %c0 to %c1 step %c1 {
scf.for %i2171 = %c0 to %c1 step %c1 {
scf.for %i2172 = %c0 to %c1 step %c1 {
scf.for %i2173 = %c0 to %c1 step %c1 {
scf.for %i2174 = %c0 to %c1 step %c1 {
scf.for %i2175 = %c0 to %c1 step %c1 {
scf.for %i2176 = %c0 to %c1 step %c1 {
scf.for %i2177 = %c0 to %c1 step %c1 {
scf.for %i2178 = %c0 to %c1 step %c1 {
scf.for %i2179 = %c0 to %c1 step %c1 {
scf.for %i2180 = %c0 to %c1 step %c1 {
scf.for %i2181 = %c0 to %c1 step %c1 {
scf.for %i2182 = %c0 to %c1 step %c1 {
scf.for %i2183 = %c0 to %c1 step %c1 {
scf.for %i2184 = %c0 to %c1 step %c1 {
scf.for %i2185 = %c0 to %c1 step %c1 {
scf.for %i2186 = %c0 to %c1 step %c1 {
scf.for %i2187 = %c0 to %c1 step %c1 {
scf.for %i2188 = %c0 to %c1 step %c1 {
scf.for %i2189 = %c0 to %c1 step %c1 {
scf.for %i2190 = %c0 to %c1 step %c1 {
scf.for %i2191 = %c0 to %c1 step %c1 {
scf.for %i2192 = %c0 to %c1 step %c1 {
scf.for %i2193 = %c0 to %c1 step %c1 {
scf.for %i2194 = %c0 to %c1 step %c1 {
scf.for %i2195 = %c0 to %c1 step %c1 {
scf.for %i2196 = %c0 to %c1 step %c1 {
scf.for %i2197 = %c0 to %c1 step %c1 {
scf.for %i2198 = %c0 to %c1 step %c1 {
scf.for %i2199 = %c0 to %c1 step %c1 {
scf.for %i2200 = %c0 to %c1 step %c1 {
scf.for %i2201 = %c0 to %c1 step %c1 {
scf.for %i2202 = %c0 to %c1 step %c1 {
scf.for %i2203 = %c0 to %c1 step %c1 {
scf.for %i2204 = %c0 to %c1 step %c1 {
scf.for %i2205 = %c0 to %c1 step %c1 {
scf.for %i2206 = %c0 to %c1 step %c1 {
scf.for %i2207 = %c0 to %c1 step %c1 {
scf.for %i2208 = %c0 to %c1 step %c1 {
scf.for %i2209 = %c0 to %c1 step %c1 {
scf.for %i2210 = %c0 to %c1 step %c1 {
scf.for %i2211 = %c0 to %c1 step %c1 {
scf.for %i2212 = %c0 to %c1 step %c1 {
scf.for %i2213 = %c0 to %c1 step %c1 {
scf.for %i2214 = %c0 to %c1 step %c1 {
scf.for %i2215 = %c0 to %c1 step %c1 {
scf.for %i2216 = %c0 to %c1 step %c1 {
scf.for %i2217 = %c0 to %c1 step %c1 {
scf.for %i2218 = %c0 to %c1 step %c1 {
scf.for %i2219 = %c0 to %c1 step %c1 {
scf.for %i2220 = %c0 to %c1 step %c1 {
scf.for %i2221 = %c0 to %c1 step %c1 {
scf.for %i2222 = %c0 to %c1 step %c1 {
scf.for %i2223 = %c0 to %c1 step %c1 {
scf.for %i2224 = %c0 to %c1 step %c1 {
scf.for %i2225 = %c0 to %c1 step %c1 {
scf.for %i2226 = %c0 to %c1 step %c1 {
scf.for %i2227 = %c0 to %c1 step %c1 {
scf.for %i2228 = %c0 to %c1 step %c1 {
scf.for %i2229 = %c0 to %c1 step %c1 {
scf.for %i2230 = %c0 to %c1 step %c1 {
scf.for %i2231 = %c0 to %c1 step %c1 {
scf.for %i2232 = %c0 to %c1 step %c1 {
scf.for %i2233 = %c0 to %c1 step %c1 {
scf.for %i2234 = %c0 to %c1 step %c1 {
scf.for %i2235 = %c0 to %c1 step %c1 {
scf.for %i2236 = %c0 to %c1 step %c1 {
scf.for %i2237 = %c0 to %c1 step %c1 {
scf.for %i2238 = %c0 to %c1 step %c1 {
scf.for %i2239 = %c0 to %c1 step %c1 {
scf.for %i2240 = %c0 to %c1 step %c1 {
scf.for %i2241 = %c0 to %c1 step %c1 {
scf.for %i2242 = %c0 to %c1 step %c1 {
scf.for %i2243 = %c0 to %c1 step %c1 {
scf.for %i2244 = %c0 to %c1 step %c1 {
scf.for %i2245 = %c0 to %c1 step %c1 {
scf.for %i2246 = %c0 to %c1 step %c1 {
scf.for %i2247 = %c0 to %c1 step %c1 {
scf.for %i2248 = %c0 to %c1 step %c1 {
scf.for %i2249 = %c0 to %c1 step %c1 {
scf.for %i2250 = %c0 to %c1 step %c1 {
scf.for %i2251 = %c0 to %c1 step %c1 {
scf.for %i2252 = %c0 to %c1 step %c1 {
scf.for %i2253 = %c0 to %c1 step %c1 {
scf.for %i2254 = %c0 to %c1 step %c1 {
scf.for %i2255 = %c0 to %c1 step %c1 {
scf.for %i2256 = %c0 to %c1 step %c1 {
scf.for %i2257 = %c0 to %c1 step %c1 {
scf.for %i2258 = %c0 to %c1 step %c1 {
scf.for %i2259 = %c0 to %c1 step %c1 {
scf.for %i2260 = %c0 to %c1 step %c1 {
scf.for %i2261 = %c0 to %c1 step %c1 {
scf.for %i2262 = %c0 to %c1 step %c1 {
scf.for %i2263 = %c0 to %c1 step %c1 {
scf.for %i2264 = %c0 to %c1 step %c1 {
scf.for %i2265 = %c0 to %c1 step %c1 {
scf.for %i2266 = %c0 to %c1 step %c1 {
scf.for %i2267 = %c0 to %c1 step %c1 {
scf.for %i2268 = %c0 to %c1 step %c1 {
scf.for %i2269 = %c0 to %c1 step %c1 {
scf.for %i2270 = %c0 to %c1 step %c1 {
scf.for %i2271 = %c0 to %c1 step %c1 {
scf.for %i2272 = %c0 to %c1 step %c1 {
scf.for %i2273 = %c0 to %c1 step %c1 {
scf.for %i2274 = %c0 to %c1 step %c1 {
scf.for %i2275 = %c0 to %c1 step %c1 {
scf.for %i2276 = %c0 to %c1 step %c1 {
scf.for %i2277 = %c0 to %c1 step %c1 {
scf.for %i2278 = %c0 to %c1 step %c1 {
scf.for %i2279 = %c0 to %c1 step %c1 {
scf.for %i2280 = %c0 to %c1 step %c1 {
scf.for %i2281 = %c0 to %c1 step %c1 {
scf.for %i2282 = %c0 to %c1 step %c1 {
scf.for %i2283 = %c0 to %c1 step %c1 {
scf.for %i2284 = %c0 to %c1 step %c1 {
scf.for %i2285 = %c0 to %c1 step %c1 {
scf.for %i2286 = %c0 to %c1 step %c1 {
scf.for %i2287 = %c0 to %c1 step %c1 {
scf.for %i2288 = %c0 to %c1 step %c1 {
scf.for %i2289 = %c0 to %c1 step %c1 {
scf.for %i2290 = %c0 to %c1 step %c1 {
scf.for %i2291 = %c0 to %c1 step %c1 {
scf.for %i2292 = %c0 to %c1 step %c1 {
scf.for %i2293 = %c0 to %c1 step %c1 {
scf.for %i2294 = %c0 to %c1 step %c1 {
scf.for %i2295 = %c0 to %c1 step %c1 {
scf.for %i2296 = %c0 to %c1 step %c1 {
scf.for %i2297 = %c0 to %c1 step %c1 {
scf.for %i2298 = %c0 to %c1 step %c1 {
scf.for %i2299 = %c0 to %c1 step %c1 {
scf.for %i2300 = %c0 to %c1 step %c1 {
scf.for %i2301 = %c0 to %c1 step %c1 {
scf.for %i2302 = %c0 to %c1 step %c1 {
scf.for %i2303 = %c0 to %c1 step %c1 {
scf.for %i2304 = %c0 to %c1 step %c1 {
scf.for %i2305 = %c0 to %c1 step %c1 {
scf.for %i2306 = %c0 to %c1 step %c1 {
scf.for %i2307 = %c0 to %c1 step %c1 {
scf.for %i2308 = %c0 to %c1 step %c1 {
scf.for %i2309 = %c0 to %c1 step %c1 {
scf.for %i2310 = %c0 to %c1 step %c1 {
scf.for %i2311 = %c0 to %c1 step %c1 {
scf.for %i2312 = %c0 to %c1 step %c1 {
scf.for %i2313 = %c0 to %c1 step %c1 {
scf.for %i2314 = %c0 to %c1 step %c1 {
scf.for %i2315 = %c0 to %c1 step %c1 {
scf.for %i2316 = %c0 to %c1 step %c1 {
scf.for %i2317 = %c0 to %c1 step %c1 {
scf.for %i2318 = %c0 to %c1 step %c1 {
scf.for %i2319 = %c0 to %c1 step %c1 {
scf.for %i2320 = %c0 to %c1 step %c1 {
scf.for %i2321 = %c0 to %c1 step %c1 {
scf.for %i2322 = %c0 to %c1 step %c1 {
scf.for %i2323 = %c0 to %c1 step %c1 {
scf.for %i2324 = %c0 to %c1 step %c1 {
scf.for %i2325 = %c0 to %c1 step %c1 {
scf.for %i2326 = %c0 to %c1 step %c1 {
scf.for %i2327 = %c0 to %c1 step %c1 {
scf.for %i2328 = %c0 to %c1 step %c1 {
scf.for %i2329 = %c0 to %c1 step %c1 {
scf.for %i2330 = %c0 to %c1 step %c1 {
scf.for %i2331 = %c0 to %c1 step %c1 {
scf.for %i2332 = %c0 to %c1 step %c1 {
scf.for %i2333 = %c0 to %c1 step %c1 {
scf.for %i2334 = %c0 to %c1 step %c1 {
scf.for %i2335 = %c0 to %c1 step %c1 {
scf.for %i2336 = %c0 to %c1 step %c1 {
scf.for %i2337 = %c0 to %c1 step %c1 {
scf.for %i2338 = %c0 to %c1 step %c1 {
scf.for %i2339 = %c0 to %c1 step %c1 {
scf.for %i2340 = %c0 to %c1 step %c1 {
scf.for %i2341 = %c0 to %c1 step %c1 {
scf.for %i2342 = %c0 to %c1 step %c1 {
scf.for %i2343 = %c0 to %c1 step %c1 {
scf.for %i2344 = %c0 to %c1 step %c1 {
scf.for %i2345 = %c0 to %c1 step %c1 {
scf.for %i2346 = %c0 to %c1 step %c1 {
scf.for %i2347 = %c0 to %c1 step %c1 {
scf.for %i2348 = %c0 to %c1 step %c1 {
scf.for %i2349 = %c0 to %c1 step %c1 {
scf.for %i2350 = %c0 to %c1 step %c1 {
scf.for %i2351 = %c0 to %c1 step %c1 {
scf.for %i2352 = %c0 to %c1 step %c1 {
scf.for %i2353 = %c0 to %c1 step %c1 {
scf.for %i2354 = %c0 to %c1 step %c1 {
scf.for %i2355 = %c0 to %c1 step %c1 {
scf.for %i2356 = %c0 to %c1 step %c1 {
scf.for %i2357 = %c0 to %c1 step %c1 {
scf.for %i2358 = %c0 to %c1 step %c1 {
scf.for %i2359 = %c0 to %c1 step %c1 {
scf.for %i2360 = %c0 to %c1 step %c1 {
scf.for %i2361 = %c0 to %c1 step %c1 {
scf.for %i2362 = %c0 to %c1 step %c1 {
scf.for %i2363 = %c0 to %c1 step %c1 {
scf.for %i2364 = %c0 to %c1 step %c1 {
scf.for %i2365 = %c0 to %c1 step %c1 {
scf.for %i2366 = %c0 to %c1 step %c1 {
scf.for %i2367 = %c0 to %c1 step %c1 {
scf.for %i2368 = %c0 to %c1 step %c1 {
scf.for %i2369 = %c0 to %c1 step %c1 {
scf.for %i2370 = %c0 to %c1 step %c1 {
scf.for %i2371 = %c0 to %c1 step %c1 {
scf.for %i2372 = %c0 to %c1 step %c1 {
scf.for %i2373 = %c0 to %c1 step %c1 {
scf.for %i2374 = %c0 to %c1 step %c1 {
scf.for %i2375 = %c0 to %c1 step %c1 {
scf.for %i2376 = %c0 to %c1 step %c1 {
scf.for %i2377 = %c0 to %c1 step %c1 {
scf.for %i2378 = %c0 to %c1 step %c1 {
scf.for %i2379 = %c0 to %c1 step %c1 {
scf.for %i2380 = %c0 to %c1 step %c1 {
scf.for %i2381 = %c0 to %c1 step %c1 {
scf.for %i2382 = %c0 to %c1 step %c1 {
scf.for %i2383 = %c0 to %c1 step %c1 {
scf.for %i2384 = %c0 to %c1 step %c1 {
scf.for %i2385 = %c0 to %c1 step %c1 {
scf.for %i2386 = %c0 to %c1 step %c1 {
scf.for %i2387 = %c0 to %c1 step %c1 {
scf.for %i2388 = %c0 to %c1 step %c1 {
scf.for %i2389 = %c0 to %c1 step %c1 {
scf.for %i2390 = %c0 to %c1 step %c1 {
scf.for %i2391 = %c0 to %c1 step %c1 {
scf.for %i2392 = %c0 to %c1 step %c1 {
scf.for %i2393 = %c0 to %c1 step %c1 {
scf.for %i2394 = %c0 to %c1 step %c1 {
scf.for %i2395 = %c0 to %c1 step %c1 {
scf.for %i2396 = %c0 to %c1 step %c1 {
scf.for %i2397 = %c0 to %c1 step %c1 {
scf.for %i2398 = %c0 to %c1 step %c1 {
scf.for %i2399 = %c0 to %c1 step %c1 {
scf.for %i2400 = %c0 to %c1 step %c1 {
scf.for %i2401 = %c0 to %c1 step %c1 {
scf.for %i2402 = %c0 to %c1 step %c1 {
scf.for %i2403 = %c0 to %c1 step %c1 {
scf.for %i2404 = %c0 to %c1 step %c1 {
scf.for %i2405 = %c0 to %c1 step %c1 {
scf.for %i2406 = %c0 to %c1 step %c1 {
scf.for %i2407 = %c0 to %c1 step %c1 {
scf.for %i2408 = %c0 to %c1 step %c1 {
scf.for %i2409 = %c0 to %c1 step %c1 {
scf.for %i2410 = %c0 to %c1 step %c1 {
scf.for %i2411 = %c0 to %c1 step %c1 {
scf.for %i2412 = %c0 to %c1 step %c1 {
scf.for %i2413 = %c0 to %c1 step %c1 {
scf.for %i2414 = %c0 to %c1 step %c1 {
scf.for %i2415 = %c0 to %c1 step %c1 {
scf.for %i2416 = %c0 to %c1 step %c1 {
scf.for %i2417 = %c0 to %c1 step %c1 {
scf.for %i2418 = %c0 to %c1 step %c1 {
scf.for %i2419 = %c0 to %c1 step %c1 {
scf.for %i2420 = %c0 to %c1 step %c1 {
scf.for %i2421 = %c0 to %c1 step %c1 {
scf.for %i2422 = %c0 to %c1 step %c1 {
scf.for %i2423 = %c0 to %c1 step %c1 {
scf.for %i2424 = %c0 to %c1 step %c1 {
scf.for %i2425 = %c0 to %c1 step %c1 {
scf.for %i2426 = %c0 to %c1 step %c1 {
scf.for %i2427 = %c0 to %c1 step %c1 {
scf.for %i2428 = %c0 to %c1 step %c1 {
scf.for %i2429 = %c0 to %c1 step %c1 {
scf.for %i2430 = %c0 to %c1 step %c1 {
scf.for %i2431 = %c0 to %c1 step %c1 {
scf.for %i2432 = %c0 to %c1 step %c1 {
scf.for %i2433 = %c0 to %c1 step %c1 {
scf.for %i2434 = %c0 to %c1 step %c1 {
scf.for %i2435 = %c0 to %c1 step %c1 {
scf.for %i2436 = %c0 to %c1 step %c1 {
scf.for %i2437 = %c0 to %c1 step %c1 {
scf.for %i2438 = %c0 to %c1 step %c1 {
scf.for %i2439 = %c0 to %c1 step %c1 {
scf.for %i2440 = %c0 to %c1 step %c1 {
scf.for %i2441 = %c0 to %c1 step %c1 {
scf.for %i2442 = %c0 to %c1 step %c1 {
scf.for %i2443 = %c0 to %c1 step %c1 {
scf.for %i2444 = %c0 to %c1 step %c1 {
scf.for %i2445 = %c0 to %c1 step %c1 {
scf.for %i2446 = %c0 to %c1 step %c1 {
scf.for %i2447 = %c0 to %c1 step %c1 {
scf.for %i2448 = %c0 to %c1 step %c1 {
scf.for %i2449 = %c0 to %c1 step %c1 {
scf.for %i2450 = %c0 to %c1 step %c1 {
scf.for %i2451 = %c0 to %c1 step %c1 {
scf.for %i2452 = %c0 to %c1 step %c1 {
scf.for %i2453 = %c0 to %c1 step %c1 {
scf.for %i2454 = %c0 to %c1 step %c1 {
scf.for %i2455 = %c0 to %c1 step %c1 {
scf.for %i2456 = %c0 to %c1 step %c1 {
scf.for %i2457 = %c0 to %c1 step %c1 {
scf.for %i2458 = %c0 to %c1 step %c1 {
scf.for %i2459 = %c0 to %c1 step %c1 {
scf.for %i2460 = %c0 to %c1 step %c1 {
scf.for %i2461 = %c0 to %c1 step %c1 {
scf.for %i2462 = %c0 to %c1 step %c1 {
scf.for %i2463 = %c0 to %c1 step %c1 {
scf.for %i2464 = %c0 to %c1 step %c1 {
scf.for %i2465 = %c0 to %c1 step %c1 {
scf.for %i2466 = %c0 to %c1 step %c1 {
scf.for %i2467 = %c0 to %c1 step %c1 {
scf.for %i2468 = %c0 to %c1 step %c1 {
scf.for %i2469 = %c0 to %c1 step %c1 {
scf.for %i2470 = %c0 to %c1 step %c1 {
scf.for %i2471 = %c0 to %c1 step %c1 {
scf.for %i2472 = %c0 to %c1 step %c1 {
scf.for %i2473 = %c0 to %c1 step %c1 {
scf.for %i2474 = %c0 to %c1 step %c1 {
scf.for %i2475 = %c0 to %c1 step %c1 {
scf.for %i2476 = %c0 to %c1 step %c1 {
scf.for %i2477 = %c0 to %c1 step %c1 {
scf.for %i2478 = %c0 to %c1 step %c1 {
scf.for %i2479 = %c0 to %c1 step %c1 {
scf.for %i2480 = %c0 to %c1 step %c1 {
scf.for %i2481 = %c0 to %c1 step %c1 {
scf.for %i2482 = %c0 to %c1 step %c1 {
scf.for %i2483 = %c0 to %c1 step %c1 {
scf.for %i2484 = %c0 to %c1 step %c1 {
scf.for %i2485 = %c0 to %c1 step %c1 {
scf.for %i2486 = %c0 to %c1 step %c1 {
scf.for %i2487 = %c0 to %c1 step %c1 {
scf.for %i2488 = %c0 to %c1 step %c1 {
scf.for %i2489 = %c0 to %c1 step %c1 {
scf.for %i2490 = %c0 to %c1 step %c1 {
scf.for %i2491 = %c0 to %c1 step %c1 {
scf.for %i2492 = %c0 to %c1 step %c1 {
scf.for %i2493 = %c0 to %c1 step %c1 {
scf.for %i2494 = %c0 to %c1 step %c1 {
scf.for %i2495 = %c0 to %c1 step %c1 {
scf.for %i2496 = %c0 to %c1 step %c1 {
scf.for %i2497 = %c0 to %c1 step %c1 {
scf.for %i2498 = %c0 to %c1 step %c1 {
scf.for %i2499 = %c0 to %c1 step %c1 {
scf.for %i2500 = %c0 to %c1 step %c1 {
scf.for %i2501 = %c0 to %c1 step %c1 {
scf.for %i2502 = %c0 to %c1 step %c1 {
scf.for %i2503 = %c0 to %c1 step %c1 {
scf.for %i2504 = %c0 to %c1 step %c1 {
scf.for %i2505 = %c0 to %c1 step %c1 {
scf.for %i2506 = %c0 to %c1 step %c1 {
scf.for %i2507 = %c0 to %c1 step %c1 {
scf.for %i2508 = %c0 to %c1 step %c1 {
scf.for %i2509 = %c0 to %c1 step %c1 {
scf.for %i2510 = %c0 to %c1 step %c1 {
scf.for %i2511 = %c0 to %c1 step %c1 {
scf.for %i2512 = %c0 to %c1 step %c1 {
scf.for %i2513 = %c0 to %c1 step %c1 {
scf.for %i2514 = %c0 to %c1 step %c1 {
scf.for %i2515 = %c0 to %c1 step %c1 {
scf.for %i2516 = %c0 to %c1 step %c1 {
scf.for %i2517 = %c0 to %c1 step %c1 {
scf.for %i2518 = %c0 to %c1 step %c1 {
scf.for %i2519 = %c0 to %c1 step %c1 {
scf.for %i2520 = %c0 to %c1 step %c1 {
scf.for %i2521 = %c0 to %c1 step %c1 {
scf.for %i2522 = %c0 to %c1 step %c1 {
scf.for %i2523 = %c0 to %c1 step %c1 {
scf.for %i2524 = %c0 to %c1 step %c1 {
scf.for %i2525 = %c0 to %c1 step %c1 {
scf.for %i2526 = %c0 to %c1 step %c1 {
scf.for %i2527 = %c0 to %c1 step %c1 {
scf.for %i2528 = %c0 to %c1 step %c1 {
scf.for %i2529 = %c0 to %c1 step %c1 {
scf.for %i2530 = %c0 to %c1 step %c1 {
scf.for %i2531 = %c0 to %c1 step %c1 {
scf.for %i2532 = %c0 to %c1 step %c1 {
scf.for %i2533 = %c0 to %c1 step %c1 {
scf.for %i2534 = %c0 to %c1 step %c1 {
scf.for %i2535 = %c0 to %c1 step %c1 {
scf.for %i2536 = %c0 to %c1 step %c1 {
scf.for %i2537 = %c0 to %c1 step %c1 {
scf.for %i2538 = %c0 to %c1 step %c1 {
scf.for %i2539 = %c0 to %c1 step %c1 {
scf.for %i2540 = %c0 to %c1 step %c1 {
scf.for %i2541 = %c0 to %c1 step %c1 {
scf.for %i2542 = %c0 to %c1 step %c1 {
scf.for %i2543 = %c0 to %c1 step %c1 {
scf.for %i2544 = %c0 to %c1 step %c1 {
scf.for %i2545 = %c0 to %c1 step %c1 {
scf.for %i2546 = %c0 to %c1 step %c1 {
scf.for %i2547 = %c0 to %c1 step %c1 {
scf.for %i2548 = %c0 to %c1 step %c1 {
scf.for %i2549 = %c0 to %c1 step %c1 {
scf.for %i2550 = %c0 to %c1 step %c1 {
scf.for %i2551 = %c0 to %c1 step %c1 {
scf.for %i2552 = %c0 to %c1 step %c1 {
scf.for %i2553 = %c0 to %c1 step %c1 {
scf.for %i2554 = %c0 to %c1 step %c1 {
scf.for %i2555 = %c0 to %c1 step %c1 {
scf.for %i2556 = %c0 to %c1 step %c1 {
scf.for %i2557 = %c0 to %c1 step %c1 {
scf.for %i2558 = %c0 to %c1 step %c1 {
scf.for %i2559 = %c0 to %c1 step %c1 {
scf.for %i2560 = %c0 to %c1 step %c1 {
scf.for %i2561 = %c0 to %c1 step %c1 {
scf.for %i2562 = %c0 to %c1 step %c1 {
scf.for %i2563 = %c0 to %c1 step %c1 {
scf.for %i2564 = %c0 to %c1 step %c1 {
scf.for %i2565 = %c0 to %c1 step %c1 {
scf.for %i2566 = %c0 to %c1 step %c1 {
scf.for %i2567 = %c0 to %c1 step %c1 {
scf.for %i2568 = %c0 to %c1 step %c1 {
scf.for %i2569 = %c0 to %c1 step %c1 {
scf.for %i2570 = %c0 to %c1 step %c1 {
scf.for %i2571 = %c0 to %c1 step %c1 {
scf.for %i2572 = %c0 to %c1 step %c1 {
scf.for %i2573 = %c0 to %c1 step %c1 {
scf.for %i2574 = %c0 to %c1 step %c1 {
scf.for %i2575 = %c0 to %c1 step %c1 {
scf.for %i2576 = %c0 to %c1 step %c1 {
scf.for %i2577 = %c0 to %c1 step %c1 {
scf.for %i2578 = %c0 to %c1 step %c1 {
scf.for %i2579 = %c0 to %c1 step %c1 {
scf.for %i2580 = %c0 to %c1 step %c1 {
scf.for %i2581 = %c0 to %c1 step %c1 {
scf.for %i2582 = %c0 to %c1 step %c1 {
scf.for %i2583 = %c0 to %c1 step %c1 {
scf.for %i2584 = %c0 to %c1 step %c1 {
scf.for %i2585 = %c0 to %c1 step %c1 {
scf.for %i2586 = %c0 to %c1 step %c1 {
scf.for %i2587 = %c0 to %c1 step %c1 {
scf.for %i2588 = %c0 to %c1 step %c1 {
scf.for %i2589 = %c0 to %c1 step %c1 {
scf.for %i2590 = %c0 to %c1 step %c1 {
scf.for %i2591 = %c0 to %c1 step %c1 {
scf.for %i2592 = %c0 to %c1 step %c1 {
scf.for %i2593 = %c0 to %c1 step %c1 {
scf.for %i2594 = %c0 to %c1 step %c1 {
scf.for %i2595 = %c0 to %c1 step %c1 {
scf.for %i2596 = %c0 to %c1 step %c1 {
scf.for %i2597 = %c0 to %c1 step %c1 {
scf.for %i2598 = %c0 to %c1 step %c1 {
scf.for %i2599 = %c0 to %c1 step %c1 {
scf.for %i2600 = %c0 to %c1 step %c1 {
scf.for %i2601 = %c0 to %c1 step %c1 {
scf.for %i2602 = %c0 to %c1 step %c1 {
scf.for %i2603 = %c0 to %c1 step %c1 {
scf.for %i2604 = %c0 to %c1 step %c1 {
scf.for %i2605 = %c0 to %c1 step %c1 {
scf.for %i2606 = %c0 to %c1 step %c1 {
scf.for %i2607 = %c0 to %c1 step %c1 {
scf.for %i2608 = %c0 to %c1 step %c1 {
scf.for %i2609 = %c0 to %c1 step %c1 {
scf.for %i2610 = %c0 to %c1 step %c1 {
scf.for %i2611 = %c0 to %c1 step %c1 {
scf.for %i2612 = %c0 to %c1 step %c1 {
scf.for %i2613 = %c0 to %c1 step %c1 {
scf.for %i2614 = %c0 to %c1 step %c1 {
scf.for %i2615 = %c0 to %c1 step %c1 {
scf.for %i2616 = %c0 to %c1 step %c1 {
scf.for %i2617 = %c0 to %c1 step %c1 {
scf.for %i2618 = %c0 to %c1 step %c1 {
scf.for %i2619 = %c0 to %c1 step %c1 {
scf.for %i2620 = %c0 to %c1 step %c1 {
scf.for %i2621 = %c0 to %c1 step %c1 {
scf.for %i2622 = %c0 to %c1 step %c1 {
scf.for %i2623 = %c0 to %c1 step %c1 {
scf.for %i2624 = %c0 to %c1 step %c1 {
scf.for %i2625 = %c0 to %c1 step %c1 {
scf.for %i2626 = %c0 to %c1 step %c1 {
scf.for %i2627 = %c0 to %c1 step %c1 {
scf.for %i2628 = %c0 to %c1 step %c1 {
scf.for %i2629 = %c0 to %c1 step %c1 {
scf.for %i2630 = %c0 to %c1 step %c1 {
scf.for %i2631 = %c0 to %c1 step %c1 {
scf.for %i2632 = %c0 to %c1 step %c1 {
scf.for %i2633 = %c0 to %c1 step %c1 {
scf.for %i2634 = %c0 to %c1 step %c1 {
scf.for %i2635 = %c0 to %c1 step %c1 {
scf.for %i2636 = %c0 to %c1 step %c1 {
scf.for %i2637 = %c0 to %c1 step %c1 {
scf.for %i2638 = %c0 to %c1 step %c1 {
scf.for %i2639 = %c0 to %c1 step %c1 {
scf.for %i2640 = %c0 to %c1 step %c1 {
scf.for %i2641 = %c0 to %c1 step %c1 {
scf.for %i2642 = %c0 to %c1 step %c1 {
scf.for %i2643 = %c0 to %c1 step %c1 {
scf.for %i2644 = %c0 to %c1 step %c1 {
scf.for %i2645 = %c0 to %c1 step %c1 {
scf.for %i2646 = %c0 to %c1 step %c1 {
scf.for %i2647 = %c0 to %c1 step %c1 {
scf.for %i2648 = %c0 to %c1 step %c1 {
scf.for %i2649 = %c0 to %c1 step %c1 {
scf.for %i2650 = %c0 to %c1 step %c1 {
scf.for %i2651 = %c0 to %c1 step %c1 {
scf.for %i2652 = %c0 to %c1 step %c1 {
scf.for %i2653 = %c0 to %c1 step %c1 {
scf.for %i2654 = %c0 to %c1 step %c1 {
scf.for %i2655 = %c0 to %c1 step %c1 {
scf.for %i2656 = %c0 to %c1 step %c1 {
scf.for %i2657 = %c0 to %c1 step %c1 {
scf.for %i2658 = %c0 to %c1 step %c1 {
scf.for %i2659 = %c0 to %c1 step %c1 {
scf.for %i2660 = %c0 to %c1 step %c1 {
scf.for %i2661 = %c0 to %c1 step %c1 {
scf.for %i2662 = %c0 to %c1 step %c1 {
scf.for %i2663 = %c0 to %c1 step %c1 {
scf.for %i2664 = %c0 to %c1 step %c1 {
scf.for %i2665 = %c0 to %c1 step %c1 {
scf.for %i2666 = %c0 to %c1 step %c1 {
scf.for %i2667 = %c0 to %c1 step %c1 {
scf.for %i2668 = %c0 to %c1 step %c1 {
scf.for %i2669 = %c0 to %c1 step %c1 {
scf.for %i2670 = %c0 to %c1 step %c1 {
scf.for %i2671 = %c0 to %c1 step %c1 {
scf.for %i2672 = %c0 to %c1 step %c1 {
scf.for %i2673 = %c0 to %c1 step %c1 {
scf.for %i2674 = %c0 to %c1 step %c1 {
scf.for %i2675 = %c0 to %c1 step %c1 {
scf.for %i2676 = %c0 to %c1 step %c1 {
scf.for %i2677 = %c0 to %c1 step %c1 {
scf.for %i2678 = %c0 to %c1 step %c1 {
scf.for %i2679 = %c0 to %c1 step %c1 {
scf.for %i2680 = %c0 to %c1 step %c1 {
scf.for %i2681 = %c0 to %c1 step %c1 {
scf.for %i2682 = %c0 to %c1 step %c1 {
scf.for %i2683 = %c0 to %c1 step %c1 {
scf.for %i2684 = %c0 to %c1 step %c1 {
scf.for %i2685 = %c0 to %c1 step %c1 {
scf.for %i2686 = %c0 to %c1 step %c1 {
scf.for %i2687 = %c0 to %c1 step %c1 {
scf.for %i2688 = %c0 to %c1 step %c1 {
scf.for %i2689 = %c0 to %c1 step %c1 {
scf.for %i2690 = %c0 to %c1 step %c1 {
scf.for %i2691 = %c0 to %c1 step %c1 {
scf.for %i2692 = %c0 to %c1 step %c1 {
scf.for %i2693 = %c0 to %c1 step %c1 {
scf.for %i2694 = %c0 to %c1 step %c1 {
scf.for %i2695 = %c0 to %c1 step %c1 {
scf.for %i2696 = %c0 to %c1 step %c1 {
scf.for %i2697 = %c0 to %c1 step %c1 {
scf.for %i2698 = %c0 to %c1 step %c1 {
scf.for %i2699 = %c0 to %c1 step %c1 {
scf.for %i2700 = %c0 to %c1 step %c1 {
scf.for %i2701 = %c0 to %c1 step %c1 {
scf.for %i2702 = %c0 to %c1 step %c1 {
scf.for %i2703 = %c0 to %c1 step %c1 {
scf.for %i2704 = %c0 to %c1 step %c1 {
scf.for %i2705 = %c0 to %c1 step %c1 {
scf.for %i2706 = %c0 to %c1 step %c1 {
scf.for %i2707 = %c0 to %c1 step %c1 {
scf.for %i2708 = %c0 to %c1 step %c1 {
scf.for %i2709 = %c0 to %c1 step %c1 {
scf.for %i2710 = %c0 to %c1 step %c1 {
scf.for %i2711 = %c0 to %c1 step %c1 {
scf.for %i2712 = %c0 to %c1 step %c1 {
scf.for %i2713 = %c0 to %c1 step %c1 {
scf.for %i2714 = %c0 to %c1 step %c1 {
scf.for %i2715 = %c0 to %c1 step %c1 {
scf.for %i2716 = %c0 to %c1 step %c1 {
scf.for %i2717 = %c0 to %c1 step %c1 {
scf.for %i2718 = %c0 to %c1 step %c1 {
scf.for %i2719 = %c0 to %c1 step %c1 {
scf.for %i2720 = %c0 to %c1 step %c1 {
scf.for %i2721 = %c0 to %c1 step %c1 {
scf.for %i2722 = %c0 to %c1 step %c1 {
scf.for %i2723 = %c0 to %c1 step %c1 {
scf.for %i2724 = %c0 to %c1 step %c1 {
scf.for %i2725 = %c0 to %c1 step %c1 {
scf.for %i2726 = %c0 to %c1 step %c1 {
scf.for %i2727 = %c0 to %c1 step %c1 {
scf.for %i2728 = %c0 to %c1 step %c1 {
scf.for %i2729 = %c0 to %c1 step %c1 {
scf.for %i2730 = %c0 to %c1 step %c1 {
scf.for %i2731 = %c0 to %c1 step %c1 {
scf.for %i2732 = %c0 to %c1 step %c1 {
scf.for %i2733 = %c0 to %c1 step %c1 {
scf.for %i2734 = %c0 to %c1 step %c1 {
scf.for %i2735 = %c0 to %c1 step %c1 {
scf.for %i2736 = %c0 to %c1 step %c1 {
scf.for %i2737 = %c0 to %c1 step %c1 {
scf.for %i2738 = %c0 to %c1 step %c1 {
scf.for %i2739 = %c0 to %c1 step %c1 {
scf.for %i2740 = %c0 to %c1 step %c1 {
scf.for %i2741 = %c0 to %c1 step %c1 {
scf.for %i2742 = %c0 to %c1 step %c1 {
scf.for %i2743 = %c0 to %c1 step %c1 {
scf.for %i2744 = %c0 to %c1 step %c1 {
scf.for %i2745 = %c0 to %c1 step %c1 {
scf.for %i2746 = %c0 to %c1 step %c1 {
scf.for %i2747 = %c0 to %c1 step %c1 {
scf.for %i2748 = %c0 to %c1 step %c1 {
scf.for %i2749 = %c0 to %c1 step %c1 {
scf.for %i2750 = %c0 to %c1 step %c1 {
scf.for %i2751 = %c0 to %c1 step %c1 {
scf.for %i2752 = %c0 to %c1 step %c1 {
scf.for %i2753 = %c0 to %c1 step %c1 {
scf.for %i2754 = %c0 to %c1 step %c1 {
scf.for %i2755 = %c0 to %c1 step %c1 {
scf.for %i2756 = %c0 to %c1 step %c1 {
scf.for %i2757 = %c0 to %c1 step %c1 {
scf.for %i2758 = %c0 to %c1 step %c1 {
scf.for %i2759 = %c0 to %c1 step %c1 {
scf.for %i2760 = %c0 to %c1 step %c1 {
scf.for %i2761 = %c0 to %c1 step %c1 {
scf.for %i2762 = %c0 to %c1 step %c1 {
scf.for %i2763 = %c0 to %c1 step %c1 {
scf.for %i2764 = %c0 to %c1 step %c1 {
scf.for %i2765 = %c0 to %c1 step %c1 {
scf.for %i2766 = %c0 to %c1 step %c1 {
scf.for %i2767 = %c0 to %c1 step %c1 {
scf.for %i2768 = %c0 to %c1 step %c1 {
scf.for %i2769 = %c0 to %c1 step %c1 {
scf.for %i2770 = %c0 to %c1 step %c1 {
scf.for %i2771 = %c0 to %c1 step %c1 {
scf.for %i2772 = %c0 to %c1 step %c1 {
scf.for %i2773 = %c0 to %c1 step %c1 {
scf.for %i2774 = %c0 to %c1 step %c1 {
scf.for %i2775 = %c0 to %c1 step %c1 {
scf.for %i2776 = %c0 to %c1 step %c1 {
scf.for %i2777 = %c0 to %c1 step %c1 {
scf.for %i2778 = %c0 to %c1 step %c1 {
scf.for %i2779 = %c0 to %c1 step %c1 {
scf.for %i2780 = %c0 to %c1 step %c1 {
scf.for %i2781 = %c0 to %c1 step %c1 {
scf.for %i2782 = %c0 to %c1 step %c1 {
scf.for %i2783 = %c0 to %c1 step %c1 {
scf.for %i2784 = %c0 to %c1 step %c1 {
scf.for %i2785 = %c0 to %c1 step %c1 {
scf.for %i2786 = %c0 to %c1 step %c1 {
scf.for %i2787 = %c0 to %c1 step %c1 {
scf.for %i2788 = %c0 to %c1 step %c1 {
scf.for %i2789 = %c0 to %c1 step %c1 {
scf.for %i2790 = %c0 to %c1 step %c1 {
scf.for %i2791 = %c0 to %c1 step %c1 {
scf.for %i2792 = %c0 to %c1 step %c1 {
scf.for %i2793 = %c0 to %c1 step %c1 {
scf.for %i2794 = %c0 to %c1 step %c1 {
scf.for %i2795 = %c0 to %c1 step %c1 {
scf.for %i2796 = %c0 to %c1 step %c1 {
scf.for %i2797 = %c0 to %c1 step %c1 {
scf.for %i2798 = %c0 to %c1 step %c1 {
scf.for %i2799 = %c0 to %c1 step %c1 {
scf.for %i2800 = %c0 to %c1 step %c1 {
scf.for %i2801 = %c0 to %c1 step %c1 {
scf.for %i2802 = %c0 to %c1 step %c1 {
scf.for %i2803 = %c0 to %c1 step %c1 {
scf.for %i2804 = %c0 to %c1 step %c1 {
scf.for %i2805 = %c0 to %c1 step %c1 {
scf.for %i2806 = %c0 to %c1 step %c1 {
scf.for %i2807 = %c0 to %c1 step %c1 {
scf.for %i2808 = %c0 to %c1 step %c1 {
scf.for %i2809 = %c0 to %c1 step %c1 {
scf.for %i2810 = %c0 to %c1 step %c1 {
scf.for %i2811 = %c0 to %c1 step %c1 {
scf.for %i2812 = %c0 to %c1 step %c1 {
scf.for %i2813 = %c0 to %c1 step %c1 {
scf.for %i2814 = %c0 to %c1 step %c1 {
scf.for %i2815 = %c0 to %c1 step %c1 {
scf.for %i2816 = %c0 to %c1 step %c1 {
scf.for %i2817 = %c0 to %c1 step %c1 {
scf.for %i2818 = %c0 to %c1 step %c1 {
scf.for %i2819 = %c0 to %c1 step %c1 {
scf.for %i2820 = %c0 to %c1 step %c1 {
scf.for %i2821 = %c0 to %c1 step %c1 {
scf.for %i2822 = %c0 to %c1 step %c1 {
scf.for %i2823 = %c0 to %c1 step %c1 {
scf.for %i2824 = %c0 to %c1 step %c1 {
scf.for %i2825 = %c0 to %c1 step %c1 {
scf.for %i2826 = %c0 to %c1 step %c1 {
scf.for %i2827 = %c0 to %c1 step %c1 {
scf.for %i2828 = %c0 to %c1 step %c1 {
scf.for %i2829 = %c0 to %c1 step %c1 {
scf.for %i2830 = %c0 to %c1 step %c1 {
scf.for %i2831 = %c0 to %c1 step %c1 {
scf.for %i2832 = %c0 to %c1 step %c1 {
scf.for %i2833 = %c0 to %c1 step %c1 {
scf.for %i2834 = %c0 to %c1 step %c1 {
scf.for %i2835 = %c0 to %c1 step %c1 {
scf.for %i2836 = %c0 to %c1 step %c1 {
scf.for %i2837 = %c0 to %c1 step %c1 {
scf.for %i2838 = %c0 to %c1 step %c1 {
scf.for %i2839 = %c0 to %c1 step %c1 {
scf.for %i2840 = %c0 to %c1 step %c1 {
scf.for %i2841 = %c0 to %c1 step %c1 {
scf.for %i2842 = %c0 to %c1 step %c1 {
scf.for %i2843 = %c0 to %c1 step %c1 {
scf.for %i2844 = %c0 to %c1 step %c1 {
scf.for %i2845 = %c0 to %c1 step %c1 {
scf.for %i2846 = %c0 to %c1 step %c1 {
scf.for %i2847 = %c0 to %c1 step %c1 {
scf.for %i2848 = %c0 to %c1 step %c1 {
scf.for %i2849 = %c0 to %c1 step %c1 {
scf.for %i2850 = %c0 to %c1 step %c1 {
scf.for %i2851 = %c0 to %c1 step %c1 {
scf.for %i2852 = %c0 to %c1 step %c1 {
scf.for %i2853 = %c0 to %c1 step %c1 {
scf.for %i2854 = %c0 to %c1 step %c1 {
scf.for %i2855 = %c0 to %c1 step %c1 {
scf.for %i2856 = %c0 to %c1 step %c1 {
scf.for %i2857 = %c0 to %c1 step %c1 {
scf.for %i2858 = %c0 to %c1 step %c1 {
scf.for %i2859 = %c0 to %c1 step %c1 {
scf.for %i2860 = %c0 to %c1 step %c1 {
scf.for %i2861 = %c0 to %c1 step %c1 {
scf.for %i2862 = %c0 to %c1 step %c1 {
scf.for %i2863 = %c0 to %c1 step %c1 {
scf.for %i2864 = %c0 to %c1 step %c1 {
scf.for %i2865 = %c0 to %c1 step %c1 {
scf.for %i2866 = %c0 to %c1 step %c1 {
scf.for %i2867 = %c0 to %c1 step %c1 {
scf.for %i2868 = %c0 to %c1 step %c1 {
scf.for %i2869 = %c0 to %c1 step %c1 {
scf.for %i2870 = %c0 to %c1 step %c1 {
scf.for %i2871 = %c0 to %c1 step %c1 {
scf.for %i2872 = %c0 to %c1 step %c1 {
scf.for %i2873 = %c0 to %c1 step %c1 {
scf.for %i2874 = %c0 to %c1 step %c1 {
scf.for %i2875 = %c0 to %c1 step %c1 {
scf.for %i2876 = %c0 to %c1 step %c1 {
scf.for %i2877 = %c0 to %c1 step %c1 {
scf.for %i2878 = %c0 to %c1 step %c1 {
scf.for %i2879 = %c0 to %c1 step %c1 {
scf.for %i2880 = %c0 to %c1 step %c1 {
scf.for %i2881 = %c0 to %c1 step %c1 {
scf.for %i2882 = %c0 to %c1 step %c1 {
scf.for %i2883 = %c0 to %c1 step %c1 {
scf.for %i2884 = %c0 to %c1 step %c1 {
scf.for %i2885 = %c0 to %c1 step %c1 {
scf.for %i2886 = %c0 to %c1 step %c1 {
scf.for %i2887 = %c0 to %c1 step %c1 {
scf.for %i2888 = %c0 to %c1 step %c1 {
scf.for %i2889 = %c0 to %c1 step %c1 {
scf.for %i2890 = %c0 to %c1 step %c1 {
scf.for %i2891 = %c0 to %c1 step %c1 {
scf.for %i2892 = %c0 to %c1 step %c1 {
scf.for %i2893 = %c0 to %c1 step %c1 {
scf.for %i2894 = %c0 to %c1 step %c1 {
scf.for %i2895 = %c0 to %c1 step %c1 {
scf.for %i2896 = %c0 to %c1 step %c1 {
scf.for %i2897 = %c0 to %c1 step %c1 {
scf.for %i2898 = %c0 to %c1 step %c1 {
scf.for %i2899 = %c0 to %c1 step %c1 {
scf.for %i2900 = %c0 to %c1 step %c1 {
scf.for %i2901 = %c0 to %c1 step %c1 {
scf.for %i2902 = %c0 to %c1 step %c1 {
scf.for %i2903 = %c0 to %c1 step %c1 {
scf.for %i2904 = %c0 to %c1 step %c1 {
scf.for %i2905 = %c0 to %c1 step %c1 {
scf.for %i2906 = %c0 to %c1 step %c1 {
scf.for %i2907 = %c0 to %c1 step %c1 {
scf.for %i2908 = %c0 to %c1 step %c1 {
scf.for %i2909 = %c0 to %c1 step %c1 {
scf.for %i2910 = %c0 to %c1 step %c1 {
scf.for %i2911 = %c0 to %c1 step %c1 {
scf.for %i2912 = %c0 to %c1 step %c1 {
scf.for %i2913 = %c0 to %c1 step %c1 {
scf.for %i2914 = %c0 to %c1 step %c1 {
scf.for %i2915 = %c0 to %c1 step %c1 {
scf.for %i2916 = %c0 to %c1 step %c1 {
scf.for %i2917 = %c0 to %c1 step %c1 {
scf.for %i2918 = %c0 to %c1 step %c1 {
scf.for %i2919 = %c0 to %c1 step %c1 {
scf.for %i2920 = %c0 to %c1 step %c1 {
scf.for %i2921 = %c0 to %c1 step %c1 {
scf.for %i2922 = %c0 to %c1 step %c1 {
scf.for %i2923 = %c0 to %c1 step %c1 {
scf.for %i2924 = %c0 to %c1 step %c1 {
scf.for %i2925 = %c0 to %c1 step %c1 {
scf.for %i2926 = %c0 to %c1 step %c1 {
scf.for %i2927 = %c0 to %c1 step %c1 {
scf.for %i2928 = %c0 to %c1 step %c1 {
scf.for %i2929 = %c0 to %c1 step %c1 {
scf.for %i2930 = %c0 to %c1 step %c1 {
scf.for %i2931 = %c0 to %c1 step %c1 {
scf.for %i2932 = %c0 to %c1 step %c1 {
scf.for %i2933 = %c0 to %c1 step %c1 {
scf.for %i2934 = %c0 to %c1 step %c1 {
scf.for %i2935 = %c0 to %c1 step %c1 {
scf.for %i2936 = %c0 to %c1 step %c1 {
scf.for %i2937 = %c0 to %c1 step %c1 {
scf.for %i2938 = %c0 to %c1 step %c1 {
scf.for %i2939 = %c0 to %c1 step %c1 {
scf.for %i2940 = %c0 to %c1 step %c1 {
scf.for %i2941 = %c0 to %c1 step %c1 {
scf.for %i2942 = %c0 to %c1 step %c1 {
scf.for %i2943 = %c0 to %c1 step %c1 {
scf.for %i2944 = %c0 to %c1 step %c1 {
scf.for %i2945 = %c0 to %c1 step %c1 {
scf.for %i2946 = %c0 to %c1 step %c1 {
scf.for %i2947 = %c0 to %c1 step %c1 {
scf.for %i2948 = %c0 to %c1 step %c1 {
scf.for %i2949 = %c0 to %c1 step %c1 {
scf.for %i2950 = %c0 to %c1 step %c1 {
scf.for %i2951 = %c0 to %c1 step %c1 {
scf.for %i2952 = %c0 to %c1 step %c1 {
scf.for %i2953 = %c0 to %c1 step %c1 {
scf.for %i2954 = %c0 to %c1 step %c1 {
scf.for %i2955 = %c0 to %c1 step %c1 {
scf.for %i2956 = %c0 to %c1 step %c1 {
scf.for %i2957 = %c0 to %c1 step %c1 {
scf.for %i2958 = %c0 to %c1 step %c1 {
scf.for %i2959 = %c0 to %c1 step %c1 {
scf.for %i2960 = %c0 to %c1 step %c1 {
scf.for %i2961 = %c0 to %c1 step %c1 {
scf.for %i2962 = %c0 to %c1 step %c1 {
scf.for %i2963 = %c0 to %c1 step %c1 {
scf.for %i2964 = %c0 to %c1 step %c1 {
scf.for %i2965 = %c0 to %c1 step %c1 {
scf.for %i2966 = %c0 to %c1 step %c1 {
scf.for %i2967 = %c0 to %c1 step %c1 {
scf.for %i2968 = %c0 to %c1 step %c1 {
scf.for %i2969 = %c0 to %c1 step %c1 {
scf.for %i2970 = %c0 to %c1 step %c1 {
scf.for %i2971 = %c0 to %c1 step %c1 {
scf.for %i2972 = %c0 to %c1 step %c1 {
scf.for %i2973 = %c0 to %c1 step %c1 {
scf.for %i2974 = %c0 to %c1 step %c1 {
scf.for %i2975 = %c0 to %c1 step %c1 {
scf.for %i2976 = %c0 to %c1 step %c1 {
scf.for %i2977 = %c0 to %c1 step %c1 {
scf.for %i2978 = %c0 to %c1 step %c1 {
scf.for %i2979 = %c0 to %c1 step %c1 {
scf.for %i2980 = %c0 to %c1 step %c1 {
scf.for %i2981 = %c0 to %c1 step %c1 {
scf.for %i2982 = %c0 to %c1 step %c1 {
scf.for %i2983 = %c0 to %c1 step %c1 {
scf.for %i2984 = %c0 to %c1 step %c1 {
scf.for %i2985 = %c0 to %c1 step %c1 {
scf.for %i2986 = %c0 to %c1 step %c1 {
scf.for %i2987 = %c0 to %c1 step %c1 {
scf.for %i2988 = %c0 to %c1 step %c1 {
scf.for %i2989 = %c0 to %c1 step %c1 {
scf.for %i2990 = %c0 to %c1 step %c1 {
scf.for %i2991 = %c0 to %c1 step %c1 {
scf.for %i2992 = %c0 to %c1 step %c1 {
scf.for %i2993 = %c0 to %c1 step %c1 {
scf.for %i2994 = %c0 to %c1 step %c1 {
scf.for %i2995 = %c0 to %c1 step %c1 {
scf.for %i2996 = %c0 to %c1 step %c1 {
scf.for %i2997 = %c0 to %c1 step %c1 {
scf.for %i2998 = %c0 to %c1 step %c1 {
scf.for %i2999 = %c0 to %c1 step %c1 {
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
  tirx.return
}
