/* herdsman's assert.h: assert keeps its expression's text for the error message. */
#ifndef HERDSMAN_ASSERT_H
#define HERDSMAN_ASSERT_H
void __herdsman_assert(int condition, const char *text);
#define assert(e) __herdsman_assert((e), #e)
#endif
