"""What the Learn page teaches beyond each pattern's own lesson (which its spec holds): the three
failure modes and the limits of reflection, in English and Chinese (content only, no widgets).

The facts come from the seeds: the cost table and the three failure modes are seed 03's, the
selection advice is seeds 04 and 05's. Call bounds are computed from our own formulas.
"""

from __future__ import annotations


FAILURES = {
    "en": [("Tool returns an error", "`query_logistics(\"SF0000000\")` returns `{\"error\": \"waybill does not exist\"}`; "
            "no exception is thrown, so without a check the step counts as done.", "logistics-sf0000000"),
           ("Reasoning drift", "For a home with two long-haired cats the executor lists every spec of R1 and R7 Pro "
            "but misses what decides it: an anti-tangle brush. Nothing errors.", "vacuum-cats"),
           ("Chain effects in a multi-step plan", "If the order lookup fails, the synthesis step must know — or it "
            "invents a status or drops the sub-task.", "airx-watchfit-order")],
    "zh": [("工具返回错误", "`query_logistics(\"SF0000000\")` 返回 `{\"error\": \"运单号不存在\"}`；"
            "没有抛异常，不做检查的话这一步会被当作完成。", "logistics-sf0000000"),
           ("推理偏差", "家里有两只长毛猫，执行器全维度罗列 R1 与 R7 Pro 的参数，却没抓住决定性因素——防缠绕滚刷。"
            "全程没有报错。", "vacuum-cats"),
           ("多步任务中的连锁影响", "查订单这一步失败了，综合步骤必须知道——否则它要么编造状态，要么忽略这个子任务。",
            "airx-watchfit-order")],
}

LIMITS_OF_REFLECTION = {
    "en": "A reviewer has no ground truth. It can check that a result is **complete** and **consistent** with "
          "the goal, not that it is **true**: if the order tool had invented `{\"status\": \"delivered\"}` for "
          "order 99999, every reflection in this app would pass it. Reflection turns hidden failures into "
          "visible, recoverable ones; it does not make a model know what it cannot see (seed 03).",
    "zh": "评审没有标准答案（ground truth）。它能校验结果是否**完整**、是否与目标**一致**，却无法校验结果是否"
          "**真实**：如果订单工具为 99999 编造了 `{\"status\": \"已签收\"}`，本应用中的每一种反思都会放行。"
          "反思把隐蔽的失败变成可见、可恢复的状态，却不能让模型知道它看不见的东西（种子文章 03）。",
}
