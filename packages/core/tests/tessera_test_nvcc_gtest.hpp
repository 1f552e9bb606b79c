#pragma once
// nvcc refuses an extended __host__ __device__ lambda (TESSERA_LAMBDA) whose
// enclosing function is a private member, and GoogleTest declares every
// test's TestBody() private. Under nvcc this header re-declares TYPED_TEST
// and GTEST_TEST_ (behind TEST and TEST_F) with a public TestBody();
// everything else is GoogleTest's own expansion (GoogleTest 1.12, Debian 12).
// The registration is a namespace-scope variable, as TYPED_TEST's is, not
// GoogleTest's static member test_info_: nvcc warns (#177) that such a
// member of a test in an anonymous namespace is never referenced.
// Host compilers keep GoogleTest's macros untouched.
#include <gtest/gtest.h>

#if defined(__CUDACC__)

#undef TYPED_TEST
#define TYPED_TEST(CaseName, TestName)                                                                   \
  static_assert(sizeof(GTEST_STRINGIFY_(TestName)) > 1, "test-name must not be empty");                 \
  template <typename gtest_TypeParam_>                                                                   \
  class GTEST_TEST_CLASS_NAME_(CaseName, TestName) : public CaseName<gtest_TypeParam_> {                \
   public:                                                                                               \
    typedef CaseName<gtest_TypeParam_> TestFixture;                                                      \
    typedef gtest_TypeParam_ TypeParam;                                                                  \
    void TestBody() override;                                                                            \
  };                                                                                                     \
  static bool gtest_##CaseName##_##TestName##_registered_ GTEST_ATTRIBUTE_UNUSED_ =                     \
      ::testing::internal::TypeParameterizedTest<                                                        \
          CaseName, ::testing::internal::TemplateSel<GTEST_TEST_CLASS_NAME_(CaseName, TestName)>,       \
          GTEST_TYPE_PARAMS_(CaseName)>::Register("",                                                    \
                                                  ::testing::internal::CodeLocation(__FILE__, __LINE__), \
                                                  GTEST_STRINGIFY_(CaseName), GTEST_STRINGIFY_(TestName), 0, \
                                                  ::testing::internal::GenerateNames<                    \
                                                      GTEST_NAME_GENERATOR_(CaseName),                   \
                                                      GTEST_TYPE_PARAMS_(CaseName)>());                  \
  template <typename gtest_TypeParam_>                                                                   \
  void GTEST_TEST_CLASS_NAME_(CaseName, TestName)<gtest_TypeParam_>::TestBody()

#undef GTEST_TEST_
#define GTEST_TEST_(test_suite_name, test_name, parent_class, parent_id)                                  \
  static_assert(sizeof(GTEST_STRINGIFY_(test_suite_name)) > 1, "test_suite_name must not be empty");     \
  static_assert(sizeof(GTEST_STRINGIFY_(test_name)) > 1, "test_name must not be empty");                 \
  class GTEST_TEST_CLASS_NAME_(test_suite_name, test_name) : public parent_class {                       \
   public:                                                                                                \
    GTEST_TEST_CLASS_NAME_(test_suite_name, test_name)() = default;                                      \
    ~GTEST_TEST_CLASS_NAME_(test_suite_name, test_name)() override = default;                            \
    GTEST_TEST_CLASS_NAME_(test_suite_name, test_name)                                                   \
    (const GTEST_TEST_CLASS_NAME_(test_suite_name, test_name) &) = delete;                               \
    GTEST_TEST_CLASS_NAME_(test_suite_name, test_name) & operator=(                                      \
        const GTEST_TEST_CLASS_NAME_(test_suite_name, test_name) &) = delete; /* NOLINT */               \
    GTEST_TEST_CLASS_NAME_(test_suite_name, test_name)                                                   \
    (GTEST_TEST_CLASS_NAME_(test_suite_name, test_name) &&) noexcept = delete;                           \
    GTEST_TEST_CLASS_NAME_(test_suite_name, test_name) & operator=(                                      \
        GTEST_TEST_CLASS_NAME_(test_suite_name, test_name) &&) noexcept = delete; /* NOLINT */           \
    void TestBody() override;                                                                             \
  };                                                                                                      \
                                                                                                          \
  static ::testing::TestInfo* const gtest_##test_suite_name##_##test_name##_info_ GTEST_ATTRIBUTE_UNUSED_ = \
      ::testing::internal::MakeAndRegisterTestInfo(                                                       \
          #test_suite_name, #test_name, nullptr, nullptr,                                                 \
          ::testing::internal::CodeLocation(__FILE__, __LINE__), (parent_id),                             \
          ::testing::internal::SuiteApiResolver<parent_class>::GetSetUpCaseOrSuite(__FILE__, __LINE__),  \
          ::testing::internal::SuiteApiResolver<parent_class>::GetTearDownCaseOrSuite(__FILE__, __LINE__), \
          new ::testing::internal::TestFactoryImpl<GTEST_TEST_CLASS_NAME_(test_suite_name, test_name)>); \
  void GTEST_TEST_CLASS_NAME_(test_suite_name, test_name)::TestBody()

#endif  // __CUDACC__
