package main

import awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"

// nodeClassHash is EC2NodeClass.Hash at aws/karpenter-provider-aws v1.9.3 (pkg/apis/v1/ec2nodeclass.go: no CA
// bundle before v1.12).
func nodeClassHash(nc *awsv1.EC2NodeClass) string { return nc.Hash() }
