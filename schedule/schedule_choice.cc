#include "schedule/schedule_choice.h"

namespace tetune {

std::string source_name(ScheduleSource source) {
  switch (source) {
    case ScheduleSource::Record: return "record";
    case ScheduleSource::CostModel: return "cost model";
    case ScheduleSource::Analytical: return "analytical";
  }
  return "analytical";
}

}  // namespace tetune
