// Section A of the curriculum in the core: Bahdanau's additive attention records every term of
// e_tj = v . tanh(s_t W_s + h_j W_h) (its parameters, the tanh layer), and the Elman RNN its
// input weights, so views and tests can check each step by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "core/additive.hpp"
#include "core/rnn.hpp"
#include "trace/trace.hpp"

namespace {

TEST(Additive, RecordsParametersAndTanhLayerThatGiveTheScores) {
  const int n = 2, m = 3, d_s = 2, d_h = 3, d_a = 4;
  ap::Mat s(n, d_s), h(m, d_h);
  s << 0.5f, -1.0f, 0.25f, 2.0f;
  h << 1.0f, 0.0f, -0.5f, 0.3f, 0.7f, 0.1f, -1.2f, 0.4f, 0.9f;
  const ap::AdditiveWeights w = ap::additive_random(d_s, d_h, d_a, 7);
  ap::Trace tr;
  ap::additive_attention(tr, s, h, w);
  const ap::Stage* ws = tr.find("add_ws");
  const ap::Stage* wh = tr.find("add_wh");
  const ap::Stage* v = tr.find("add_v");
  const ap::Stage* th = tr.find("add_tanh");
  const ap::Stage* e = tr.find("add_scores");
  ASSERT_TRUE(ws && wh && v && th && e);
  EXPECT_EQ(th->shape, (std::vector<int>{n, m, d_a}));
  // By hand from the recorded parameters: a_tc = sum_i s_ti W_s[i, c], b_jc likewise,
  // tanh(a_tc + b_jc), then e_tj = sum_c v_c tanh(...).
  for (int t = 0; t < n; ++t) {
    for (int j = 0; j < m; ++j) {
      double score = 0.0;
      for (int c = 0; c < d_a; ++c) {
        double a = 0.0, b = 0.0;
        for (int i = 0; i < d_s; ++i) a += double(s(t, i)) * ws->data[i * d_a + c];
        for (int i = 0; i < d_h; ++i) b += double(h(j, i)) * wh->data[i * d_a + c];
        const double hid = std::tanh(a + b);
        EXPECT_NEAR(th->data[(t * m + j) * d_a + c], hid, 1e-6);
        score += v->data[c] * hid;
      }
      EXPECT_NEAR(e->data[t * m + j], score, 1e-5);
    }
  }
}

TEST(Rnn, RecordsInputWeightsThatGiveTheFirstState) {
  const int n = 3, d_in = 2, d_h = 3;
  ap::Mat x(n, d_in);
  x << 1.0f, -0.5f, 0.2f, 0.4f, -1.0f, 0.3f;
  const ap::RnnWeights w = ap::rnn_random(d_in, d_h, 0.9f, 3);
  ap::Trace tr;
  ap::rnn_forward(tr, x, w);
  const ap::Stage* wxh = tr.find("rnn_wxh");
  const ap::Stage* hs = tr.find("rnn_h");
  ASSERT_TRUE(wxh && hs);
  EXPECT_EQ(wxh->shape, (std::vector<int>{d_in, d_h}));
  // h_0 = tanh(x_0 W_xh + 0 W_hh + b), b = 0.
  for (int c = 0; c < d_h; ++c) {
    double pre = 0.0;
    for (int i = 0; i < d_in; ++i) pre += double(x(0, i)) * wxh->data[i * d_h + c];
    EXPECT_NEAR(hs->data[c], std::tanh(pre), 1e-6);
  }
}

}  // namespace
